import { InvalidArgumentError } from 'commander';
import { Command, Option, SubCommand } from 'nest-commander';
import { CardIssuance, CardOperations } from '../../cards/card-operations';
import { CARD_NETWORKS, CARD_STATUSES, CardNetwork, CardStatus } from '../../cards/entities/card.entity';
import { parseChoice, parseId, parseText, secretArgument, UsageError } from '../cli-options';
import { printResult } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

interface CardCreateOptions {
  user: number;
  org: number;
  status?: CardStatus;
  issuer?: number;
  provisioningId?: string;
  provisioningSecret?: string;
  processorToken?: string;
  title?: string;
  holder?: string;
  suffix?: string;
  network?: CardNetwork;
}

/** Text of 1 to `max` characters. */
function boundedText(value: string, max: number): string {
  if (value.trim() === '' || value.length > max) throw new InvalidArgumentError(`must be 1 to ${max} characters`);
  return value;
}

/** Whether a group of options was given: all of them, or none; some of them is a usage error naming the group. */
function givenTogether(options: Record<string, unknown>): boolean {
  const given = Object.values(options).filter((value) => value !== undefined).length;
  if (given !== 0 && given !== Object.keys(options).length) throw new UsageError(`${Object.keys(options).join(', ')} go together`);
  return given > 0;
}

@SubCommand({
  name: 'create',
  description:
    'Create a card for a member of an organization; prints {"id"}. An issuer comes with the provisioning credentials stored for the card, ' +
    "with the card at the issuer's processor, or both.",
})
export class CardCreateCommand extends OperatorCommand {
  constructor(private readonly cards: CardOperations) {
    super();
  }

  async run(_: string[], options: CardCreateOptions): Promise<void> {
    const { user, org, status, issuer, provisioningId, provisioningSecret, processorToken, title, holder, suffix, network } = options;
    const stored = givenTogether({ '--provisioning-id': provisioningId, '--provisioning-secret': provisioningSecret });
    const processor = givenTogether({
      '--processor-token': processorToken,
      '--title': title,
      '--holder': holder,
      '--suffix': suffix,
      '--network': network,
    });
    if ((issuer !== undefined) !== (stored || processor)) {
      throw new UsageError(
        '--issuer goes with --provisioning-id and --provisioning-secret, or with --processor-token, --title, --holder, --suffix and --network, or both',
      );
    }
    const issuance: CardIssuance | undefined =
      issuer === undefined
        ? undefined
        : {
            issuerId: issuer,
            stored: stored ? { provisioningId: provisioningId!, provisioningSecret: await secretArgument(provisioningSecret!) } : undefined,
            processor: processor
              ? {
                  processorToken: processorToken!,
                  title: title!,
                  cardholderName: holder!,
                  primaryAccountSuffix: suffix!,
                  network: network!,
                }
              : undefined,
          };
    printResult({ id: await this.cards.createCard(user, org, status ?? 'active', issuance) });
  }

  @Option({ flags: '--user <id>', description: 'card holder', required: true })
  parseUser(value: string): number {
    return parseId(value);
  }

  @Option({ flags: '--org <id>', description: "the holder's organization", required: true })
  parseOrg(value: string): number {
    return parseId(value);
  }

  @Option({ flags: '--status <status>', description: 'active (default), frozen or closed' })
  parseStatus(value: string): CardStatus {
    return parseChoice(value, CARD_STATUSES);
  }

  @Option({ flags: '--issuer <id>', description: 'issuer id' })
  parseIssuer(value: string): number {
    return parseId(value);
  }

  @Option({ flags: '--provisioning-id <id>', description: 'push-provisioning id' })
  parseProvisioningId(value: string): string {
    return parseText(value);
  }

  @Option({
    flags: '--provisioning-secret <secret>',
    description: 'push-provisioning secret (stored encrypted); - reads it from standard input',
  })
  parseProvisioningSecret(value: string): string {
    return parseText(value);
  }

  @Option({ flags: '--processor-token <token>', description: "the card's token at its issuer's processor (docs/api.md 6.1)" })
  parseProcessorToken(value: string): string {
    return boundedText(value, 255);
  }

  @Option({ flags: '--title <title>', description: 'what a wallet shows the card as, 1 to 64 characters' })
  parseTitle(value: string): string {
    return boundedText(value, 64);
  }

  @Option({ flags: '--holder <name>', description: "the cardholder's name, 1 to 128 characters" })
  parseHolder(value: string): string {
    return boundedText(value, 128);
  }

  @Option({ flags: '--suffix <digits>', description: 'the last four digits of the card number' })
  parseSuffix(value: string): string {
    if (!/^\d{4}$/.test(value)) throw new InvalidArgumentError('must be four digits');
    return value;
  }

  @Option({ flags: '--network <network>', description: CARD_NETWORKS.join(' or ') })
  parseNetwork(value: string): CardNetwork {
    return parseChoice(value, CARD_NETWORKS);
  }
}

@SubCommand({ name: 'set-status', description: 'Change a card status; prints {"id","status"}' })
export class CardSetStatusCommand extends OperatorCommand {
  constructor(private readonly cards: CardOperations) {
    super();
  }

  async run(_: string[], { card, status }: { card: number; status: CardStatus }): Promise<void> {
    await this.cards.setStatus(card, status);
    printResult({ id: card, status });
  }

  @Option({ flags: '--card <id>', description: 'card id', required: true })
  parseCard(value: string): number {
    return parseId(value);
  }

  @Option({ flags: '--status <status>', description: 'active, frozen or closed', required: true })
  parseStatus(value: string): CardStatus {
    return parseChoice(value, CARD_STATUSES);
  }
}

@Command({ name: 'card', description: 'Cards', subCommands: [CardCreateCommand, CardSetStatusCommand] })
export class CardCommand extends GroupCommand {}
