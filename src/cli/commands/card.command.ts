import { Command, Option, SubCommand } from 'nest-commander';
import { CardsService } from '../../cards/cards.service';
import { CARD_STATUSES, CardStatus } from '../../cards/entities/card.entity';
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
}

@SubCommand({
  name: 'create',
  description: 'Create a card for a member of an organization; prints {"id"}. An issuer comes with both provisioning credentials.',
})
export class CardCreateCommand extends OperatorCommand {
  constructor(private readonly cards: CardsService) {
    super();
  }

  async run(_: string[], { user, org, status, issuer, provisioningId, provisioningSecret }: CardCreateOptions): Promise<void> {
    const given = [issuer, provisioningId, provisioningSecret].filter((v) => v !== undefined).length;
    if (given !== 0 && given !== 3) {
      throw new UsageError('--issuer, --provisioning-id and --provisioning-secret go together');
    }
    const issuance =
      issuer === undefined
        ? undefined
        : { issuerId: issuer, provisioningId: provisioningId!, provisioningSecret: await secretArgument(provisioningSecret!) };
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
}

@SubCommand({ name: 'set-status', description: 'Change a card status; prints {"id","status"}' })
export class CardSetStatusCommand extends OperatorCommand {
  constructor(private readonly cards: CardsService) {
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
