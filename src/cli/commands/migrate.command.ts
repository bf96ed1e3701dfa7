import { Command } from 'nest-commander';
import { Migrator } from '../../database/migrator';
import { printResult } from '../cli-output';
import { OperatorCommand } from './operator-command';

@Command({ name: 'migrate', description: 'Apply pending migrations; prints {"applied":[names]}' })
export class MigrateCommand extends OperatorCommand {
  constructor(private readonly migrator: Migrator) {
    super();
  }

  async run(): Promise<void> {
    printResult({ applied: await this.migrator.migrate() });
  }
}
