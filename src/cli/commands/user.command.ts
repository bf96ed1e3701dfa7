import { Command, Option, SubCommand } from 'nest-commander';
import { InvalidArgumentError } from 'commander';
import { IdentityOperations } from '../../identity/identity-ports';
import { parseText } from '../cli-options';
import { printResult } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

@SubCommand({ name: 'create', description: 'Create a user; prints {"id"}' })
export class UserCreateCommand extends OperatorCommand {
  constructor(private readonly identity: IdentityOperations) {
    super();
  }

  async run(_: string[], options: { email: string; name?: string }): Promise<void> {
    printResult({ id: await this.identity.createUser(options.email, options.name ?? null) });
  }

  @Option({ flags: '--email <email>', description: 'unique e-mail address', required: true })
  parseEmail(value: string): string {
    if (!/^[^\s@]+@[^\s@]+$/.test(value) || value.length > 320) throw new InvalidArgumentError('must be an e-mail address');
    return value;
  }

  @Option({ flags: '--name <name>', description: 'display name' })
  parseName(value: string): string {
    return parseText(value);
  }
}

@Command({ name: 'user', description: 'Users', subCommands: [UserCreateCommand] })
export class UserCommand extends GroupCommand {}
