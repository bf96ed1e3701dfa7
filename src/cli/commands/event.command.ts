import { InvalidArgumentError } from 'commander';
import { Command, Option, SubCommand } from 'nest-commander';
import { EventIngest } from '../../delivery/events/event-ingest.service';
import { parseIncomingBatch } from '../../delivery/events/incoming-batch';
import { idempotencyKeyOf, parseIncomingEvent } from '../../delivery/events/incoming-event';
import { jsonFileArgument, parseId, parseText, UsageError } from '../cli-options';
import { printResult } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

interface EventOptions {
  org?: number;
  type?: string;
  data?: unknown;
  idempotencyKey?: string;
  file?: string;
}

@SubCommand({
  name: 'send',
  description:
    'Send an event as the platform API would (POST /events), prints {"id","deliveries"}; or a batch of them (--file, POST /events/batch), prints {"events":[…]}',
})
export class EventSendCommand extends OperatorCommand {
  constructor(private readonly ingest: EventIngest) {
    super();
  }

  async run(_: string[], { org, type, data, idempotencyKey, file }: EventOptions): Promise<void> {
    if (file !== undefined) {
      if (org !== undefined || type !== undefined || data !== undefined || idempotencyKey !== undefined) {
        throw new UsageError('--file holds the whole batch: give it alone');
      }
      printResult(await this.ingest.acceptBatch(parseIncomingBatch(await jsonFileArgument('--file', file))));
      return;
    }
    if (org === undefined || type === undefined) throw new UsageError('give --org and --type (one event), or --file (a batch)');
    const event = parseIncomingEvent({ type, organization: org, data: data ?? {} });
    printResult(await this.ingest.accept(event, idempotencyKeyOf(idempotencyKey)));
  }

  @Option({ flags: '--org <id>', description: 'organization id' })
  parseOrg(value: string): number {
    return parseId(value);
  }

  @Option({ flags: '--type <type>', description: 'transaction.created|updated|completed, card.updated or user.updated' })
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

  @Option({ flags: '--file <path>', description: 'a body of POST /events/batch, {"events":[…]}; - reads it from standard input' })
  parseFile(value: string): string {
    return parseText(value);
  }
}

@Command({ name: 'event', description: 'Events', subCommands: [EventSendCommand] })
export class EventCommand extends GroupCommand {}
