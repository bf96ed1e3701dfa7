import { Command, CommandRunner } from 'nest-commander';
import { Migrator } from '../../database/migrator';
import { printResult } from '../cli-output';

@Command({ name: 'migrate', description: 'Apply pending migrations; prints {"applied":[names]}' })
export class MigrateCommand extends CommandRunner {
  constructor(private readonly migrator: Migrator) {
    super();
  }

  async run(): Promise<void> {
    printResult({ applied: await this.migrator.migrate() });
  }
}
