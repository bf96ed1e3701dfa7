// The TypeORM DataSource of the `typeorm` CLI (npm run migration:generate, ...): the same
// store and migrations as the server, chosen by DATABASE_URL, and the entities the feature
// modules register, found by their file names.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadAppConfig } from './src/config/app-config';
import { SecretBox } from './src/crypto/secret-box';
import { dataSourceOptions } from './src/database/data-source-options';

const config = loadAppConfig();
export default new DataSource({
  ...dataSourceOptions(config.database, new SecretBox(config)),
  entities: [`${__dirname}/src/**/*.entity.ts`],
});
