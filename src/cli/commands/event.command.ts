import { InvalidArgumentError } from 'commander';
import { Command, Option, SubCommand } from 'nest-commander';
import { EventIngest } from '../../delivery/events/event-ingest.service';
import { idempotencyKeyOf, parseIncomingEvent } from '../../delivery/events/incoming-event';
import { parseId, parseText } from '../cli-options';
import { printResult } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

interface EventOptions {
  org: number;
  type: string;
  data?: unknown;
  idempotencyKey?: string;
}

@SubCommand({ name: 'send', description: 'Send an event as the platform API would (POST /events); prints {"id","deliveries"}' })
export class EventSendCommand extends OperatorCommand {
  constructor(private readonly ingest: EventIngest) {
    super();
  }

  async run(_: string[], { org, type, data, idempotencyKey }: EventOptions): Promise<void> {
    const event = parseIncomingEvent({ type, organization: org, data: data ?? {} });
    printResult(await this.ingest.accept(event, idempotencyKeyOf(idempotencyKey)));
  }

  @Option({ flags: '--org <id>', description: 'organization id', required: true })
  parseOrg(value: string): number {
    return parseId(value);
  }

  @Option({ flags: '--type <type>', description: 'transaction.created|updated|completed, card.updated or user.updated', required: true })
  parseType(value: string): string {
    return parseText(value);
  }

  @Option({ flags: '--data <json>', description: 'the event data, a JSON object (default {})' })
  parseData(value: string): unknown {
    try {
      return JSON.parse(value);
    } catch {
      throw new InvalidArgumentError('must be JSON');
    }
  }

  @Option({ flags: '--idempotency-key <key>', description: 'as the Idempotency-Key header' })
  parseIdempotencyKey(value: string): string {
    return value;
  }
}

@Command({ name: 'event', description: 'Events', subCommands: [EventSendCommand] })
export class EventCommand extends GroupCommand {}
