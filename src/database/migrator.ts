import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';

const LOCK_WAIT_SECONDS = 60;

/**
 * Applies pending migrations, at start when MIGRATE_ON_START is true and on `cli migrate`.
 * On MySQL a named lock (per database) makes instances that start together take turns: the
 * first applies the migrations, the others then find none pending.
 */
@Injectable()
export class Migrator implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.migrateOnStart) await this.migrate();
  }

  /** Returns the names of the migrations it applied. */
  async migrate(): Promise<string[]> {
    if (this.dataSource.options.type === 'better-sqlite3') return this.applyPending();
    const runner = this.dataSource.createQueryRunner();
    try {
      const lock = "CONCAT('platform-api.migrations.', DATABASE())";
      const [{ acquired }] = await runner.query(`SELECT GET_LOCK(${lock}, ?) AS acquired`, [LOCK_WAIT_SECONDS]);
      if (Number(acquired) !== 1) throw new Error(`no migration lock after ${LOCK_WAIT_SECONDS}s`);
      try {
        return await this.applyPending();
      } finally {
        await runner.query(`SELECT RELEASE_LOCK(${lock})`);
      }
    } finally {
      await runner.release();
    }
  }

  private async applyPending(): Promise<string[]> {
    const applied = await this.dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  }
}
