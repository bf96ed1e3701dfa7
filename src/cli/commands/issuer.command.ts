import { readFileSync } from 'node:fs';
import { Command, Option, SubCommand } from 'nest-commander';
import { CardOperations, IssuerSettings } from '../../cards/card-operations';
import { ISSUER_KINDS, IssuerKind } from '../../cards/processors/processors';
import { Errors } from '../../common/domain-error';
import { parseChoice, parseText, UsageError } from '../cli-options';
import { printResult } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

interface IssuerCreateOptions {
  name: string;
  kind?: IssuerKind;
  baseUrl?: string;
  credentialsFile?: string;
}

/**
 * The JSON a credentials file holds. Neither a read error nor a parse error is quoted beyond its
 * code: a JSON parser's message shows a piece of the text, which is the secret.
 */
function credentialsIn(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw Errors.invalid(`--credentials-file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw Errors.invalid(`--credentials-file: ${path} is not JSON`);
  }
}

@SubCommand({
  name: 'create',
  description:
    'Create a card issuer; prints {"id","kind"}. A processor issuer (marqeta, lithic) takes its base URL and a file of its credentials, never printed.',
})
export class IssuerCreateCommand extends OperatorCommand {
  constructor(private readonly cards: CardOperations) {
    super();
  }

  async run(_: string[], { name, kind = 'stored', baseUrl, credentialsFile }: IssuerCreateOptions): Promise<void> {
    let settings: IssuerSettings;
    if (kind === 'stored') {
      if (baseUrl !== undefined || credentialsFile !== undefined)
        throw new UsageError('--base-url and --credentials-file are for a processor issuer');
      settings = { kind };
    } else {
      if (baseUrl === undefined || credentialsFile === undefined)
        throw new UsageError(`--kind ${kind} needs --base-url and --credentials-file`);
      settings = { kind, baseUrl, credentials: credentialsIn(credentialsFile) };
    }
    printResult({ id: await this.cards.createIssuer(name, settings), kind });
  }

  @Option({ flags: '--name <name>', description: 'issuer name', required: true })
  parseName(value: string): string {
    return parseText(value);
  }

  @Option({
    flags: '--kind <kind>',
    description: `${ISSUER_KINDS.join(', ')} (default stored: the operator stores each card's credentials)`,
  })
  parseKind(value: string): IssuerKind {
    return parseChoice(value, ISSUER_KINDS);
  }

  @Option({
    flags: '--base-url <url>',
    description: "the processor's API root: https (http only to 127.0.0.0/8 or [::1], never in production)",
  })
  parseBaseUrl(value: string): string {
    return parseText(value);
  }

  @Option({
    flags: '--credentials-file <path>',
    description: 'JSON file of the credentials: marqeta {"username","password"}, lithic {"apiKey"}',
  })
  parseCredentialsFile(value: string): string {
    return parseText(value);
  }
}

@Command({ name: 'issuer', description: 'Card issuers', subCommands: [IssuerCreateCommand] })
export class IssuerCommand extends GroupCommand {}
