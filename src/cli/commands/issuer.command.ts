import { Command, Option, SubCommand } from 'nest-commander';
import { CardsService } from '../../cards/cards.service';
import { parseText } from '../cli-options';
import { printResult } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

@SubCommand({ name: 'create', description: 'Create a card issuer; prints {"id"}' })
export class IssuerCreateCommand extends OperatorCommand {
  constructor(private readonly cards: CardsService) {
    super();
  }

  async run(_: string[], options: { name: string }): Promise<void> {
    printResult({ id: await this.cards.createIssuer(options.name) });
  }

  @Option({ flags: '--name <name>', description: 'issuer name', required: true })
  parseName(value: string): string {
    return parseText(value);
  }
}

@Command({ name: 'issuer', description: 'Card issuers', subCommands: [IssuerCreateCommand] })
export class IssuerCommand extends GroupCommand {}
