import { Command, Option, SubCommand } from 'nest-commander';
import { ROLES, Role } from '../../identity/entities/member.entity';
import { IdentityOperations } from '../../identity/identity-ports';
import { parseChoice, parseId } from '../cli-options';
import { printResult } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

@SubCommand({ name: 'add', description: 'Add a user to an organization, or change their role; prints {"org","user","role"}' })
export class MemberAddCommand extends OperatorCommand {
  constructor(private readonly identity: IdentityOperations) {
    super();
  }

  async run(_: string[], { org, user, role }: { org: number; user: number; role: Role }): Promise<void> {
    await this.identity.setMembership(org, user, role);
    printResult({ org, user, role });
  }

  @Option({ flags: '--org <id>', description: 'organization id', required: true })
  parseOrg(value: string): number {
    return parseId(value);
  }

  @Option({ flags: '--user <id>', description: 'user id', required: true })
  parseUser(value: string): number {
    return parseId(value);
  }

  @Option({ flags: '--role <role>', description: 'owner, admin or member', required: true })
  parseRole(value: string): Role {
    return parseChoice(value, ROLES);
  }
}

@Command({ name: 'member', description: 'Memberships', subCommands: [MemberAddCommand] })
export class MemberCommand extends GroupCommand {}
