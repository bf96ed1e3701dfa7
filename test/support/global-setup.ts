import { execFileSync } from 'node:child_process';
import mysql from 'mysql2/promise';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The MariaDB server for throwaway databases, or null when it is unreachable. */
    mariadbUrl: string | null;
  }
}

/**
 * Once per run: builds dist/ as production does (suites that test the real processes spawn
 * dist/main.js and dist/cli.js), and decides whether the e2e suites can use MariaDB. With CI set, an
 * unreachable MariaDB fails the run instead of skipping its suites.
 */
export default async function setup(project: TestProject): Promise<void> {
  // The unit tier builds nothing and needs no database (issue 26): vitest.config.mts gives this
  // setup to the e2e project only, and this says so loudly if it ever reaches another again.
  if (project.name !== 'e2e') throw new Error(`global-setup.ts is the e2e project's only, not ${project.name}'s (vitest.config.mts)`);
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });

  const url = process.env.TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';
  try {
    const connection = await mysql.createConnection({ uri: url, connectTimeout: 3000 });
    await connection.end();
    project.provide('mariadbUrl', url);
  } catch (error) {
    const reason = (error as { code?: string }).code ?? (error as Error).message;
    if (process.env.CI) {
      throw new Error(`MariaDB is not reachable at ${url} (${reason}) and CI is set: failing, not skipping`, { cause: error });
    }
    process.stderr.write(`\n!!! MariaDB not reachable at ${url} (${reason}): its e2e suites are SKIPPED (set CI to fail instead)\n\n`);
    project.provide('mariadbUrl', null);
  }
}
