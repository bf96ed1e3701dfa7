// The TypeORM DataSource of the `typeorm` CLI (npm run typeorm -- migration:show, ...):
// the same store and migrations as the server, chosen by DATABASE_URL.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadAppConfig } from './src/config/app-config';
import { dataSourceOptions } from './src/database/data-source-options';

export default new DataSource(dataSourceOptions(loadAppConfig().database));
