import type { Command } from 'commander';
import { CommandRunner } from 'nest-commander';

/** A CLI command: it takes options only, so a stray word is a usage error, not ignored. */
export abstract class OperatorCommand extends CommandRunner {
  override setCommand(command: Command): this {
    command.allowExcessArguments(false);
    return super.setCommand(command);
  }
}
