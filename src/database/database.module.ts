import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { dirname } from 'node:path';
import { AppConfig } from '../config/app-config';
import { SecretBox } from '../crypto/secret-box';
import { makePrivateDirectory } from '../common/private-directory';
import { Database } from './database';
import { dataSourceOptions, driverModule } from './data-source-options';
import { Migrator } from './migrator';
import { UnitOfWork } from './unit-of-work';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig, SecretBox],
      useFactory: async (config: AppConfig, secrets: SecretBox) => {
        // The SQLite file's directory is private, like the key file's (data/ by default).
        if (config.database.type === 'sqlite' && config.database.path !== ':memory:') makePrivateDirectory(dirname(config.database.path));
        return {
          ...dataSourceOptions(config.database, secrets),
          driver: await driverModule(config.database),
          autoLoadEntities: true,
          retryAttempts: 0,
        };
      },
    }),
  ],
  providers: [Database, UnitOfWork, Migrator],
  exports: [Database, UnitOfWork, Migrator],
})
export class DatabaseModule {}
