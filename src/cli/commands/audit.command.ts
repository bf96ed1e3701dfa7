import { Command, Option, SubCommand } from 'nest-commander';
import { IdentityOperations } from '../../identity/identity-ports';
import { parseLimit } from '../cli-options';
import { printResult } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;

@SubCommand({
  name: 'list',
  description: 'The operator audit trail (platform keys created and revoked, recoveries made here), newest first; prints {"entries":[…]}',
})
export class AuditListCommand extends OperatorCommand {
  constructor(private readonly identity: IdentityOperations) {
    super();
  }

  async run(_: string[], { limit }: { limit?: number }): Promise<void> {
    printResult({ entries: await this.identity.operatorAudit(limit ?? DEFAULT_LIMIT) });
  }

  @Option({ flags: '--limit <n>', description: `how many entries, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})` })
  parseLimit(value: string): number {
    return parseLimit(value, MAX_LIMIT);
  }
}

@Command({ name: 'audit', description: "The operator's audit trail", subCommands: [AuditListCommand] })
export class AuditCommand extends GroupCommand {}
