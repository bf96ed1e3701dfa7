// The TypeORM DataSource of the `typeorm` CLI (npm run migration:generate, ...): the same
// store and migrations as the server, chosen by DATABASE_URL, and the entities the feature
// modules register, found by their file names.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadAppConfig } from './src/config/app-config';
import { dataSourceOptions } from './src/database/data-source-options';

export default new DataSource({ ...dataSourceOptions(loadAppConfig().database), entities: [`${__dirname}/src/**/*.entity.ts`] });
