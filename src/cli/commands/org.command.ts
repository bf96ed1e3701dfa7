import { Command, Option, SubCommand } from 'nest-commander';
import { IdentityOperations } from '../../identity/identity-ports';
import { parseText } from '../cli-options';
import { printResult } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

@SubCommand({ name: 'create', description: 'Create an organization; prints {"id"}' })
export class OrgCreateCommand extends OperatorCommand {
  constructor(private readonly identity: IdentityOperations) {
    super();
  }

  async run(_: string[], options: { name: string }): Promise<void> {
    printResult({ id: await this.identity.createOrganization(options.name) });
  }

  @Option({ flags: '--name <name>', description: 'organization name', required: true })
  parseName(value: string): string {
    return parseText(value);
  }
}

@Command({ name: 'org', description: 'Organizations', subCommands: [OrgCreateCommand] })
export class OrgCommand extends GroupCommand {}
