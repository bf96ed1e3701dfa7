import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { Database } from './database';
import { dataSourceOptions } from './data-source-options';
import { Migrator } from './migrator';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({ ...dataSourceOptions(config.database), autoLoadEntities: true, retryAttempts: 0 }),
    }),
  ],
  providers: [Database, Migrator],
  exports: [Database, Migrator],
})
export class DatabaseModule {}
