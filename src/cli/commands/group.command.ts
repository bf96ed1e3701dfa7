import { UsageError } from '../cli-options';
import { OperatorCommand } from './operator-command';

/** A command that only groups subcommands (`org`, `session`, ...): run alone, it is a usage error. */
export abstract class GroupCommand extends OperatorCommand {
  async run(): Promise<void> {
    const sub = this.command.commands.map((c) => c.name()).join(', ');
    throw new UsageError(`${this.command.name()}: missing subcommand (${sub})`);
  }
}
