import { InitialSchema1795342000000 } from './1795342000000-initial-schema';

/** Applied in this order; append new migrations, never edit landed ones. */
export const SQLITE_MIGRATIONS = [InitialSchema1795342000000];
