import { OPERATOR } from '../../common/actor';
import { InvalidArgumentError } from 'commander';
import { Command, Option, SubCommand } from 'nest-commander';
import { ISO_MOMENT_RULE, parseIsoMoment } from '../../common/iso-moment';
import { WebhookRecoveries } from '../../delivery/recovery/webhook-recoveries';
import { IdentityOperations } from '../../identity/identity-ports';
import { WEBHOOK_NAME_PATTERN } from '../../webhooks/webhook.model';
import { parseId } from '../cli-options';
import { printResult } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

interface RecoverOptions {
  org: number;
  name: string;
  since: Date;
  until?: Date;
}

function parseMoment(value: string): Date {
  const moment = parseIsoMoment(value);
  if (moment === undefined) throw new InvalidArgumentError(ISO_MOMENT_RULE);
  return moment;
}

@SubCommand({
  name: 'recover',
  description: 'Send again every failed delivery of a webhook created in [since, until) (POST …/recover); prints {"deliveries"}',
})
export class WebhookRecoverCommand extends OperatorCommand {
  constructor(
    private readonly recovery: WebhookRecoveries,
    private readonly identity: IdentityOperations,
  ) {
    super();
  }

  /** The console's path, run as the operator (cli.ts): the organization's trail records it with actor null, the operator's trail as well. */
  async run(_: string[], { org, name, since, until }: RecoverOptions): Promise<void> {
    await this.identity.requireOrganization(org);
    printResult(await this.recovery.recover(org, OPERATOR, name, until === undefined ? { since } : { since, until }));
  }

  @Option({ flags: '--org <id>', description: 'organization id', required: true })
  parseOrg(value: string): number {
    return parseId(value);
  }

  @Option({ flags: '--name <name>', description: 'the webhook name', required: true })
  parseName(value: string): string {
    if (!WEBHOOK_NAME_PATTERN.test(value)) throw new InvalidArgumentError(`must match ${WEBHOOK_NAME_PATTERN.source}`);
    return value;
  }

  @Option({ flags: '--since <time>', description: 'ISO 8601 with Z or an offset; within DELIVERY_RETENTION_DAYS', required: true })
  parseSince(value: string): Date {
    return parseMoment(value);
  }

  @Option({ flags: '--until <time>', description: 'ISO 8601 with Z or an offset, after since (default: now)' })
  parseUntil(value: string): Date {
    return parseMoment(value);
  }
}

@Command({ name: 'webhook', description: "An organization's webhooks", subCommands: [WebhookRecoverCommand] })
export class WebhookCommand extends GroupCommand {}
