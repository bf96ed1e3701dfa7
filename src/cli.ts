import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { CliModule } from './cli/cli.module';
import { failureOf, printFailure } from './cli/cli-output';
import { AppConfig, loadAppConfig } from './config/app-config';
import { ConfigError } from './config/environment';

/**
 * `node dist/cli.js <command> [options]` (docs/api.md 8). Success: one JSON object on stdout, exit 0.
 * Failure of any kind: `{code, message}` on stderr, exit 1.
 */
async function main(argv: string[]): Promise<void> {
  if (argv.length === 0)
    return fail('usage', 'no command (migrate, org, user, member, session, issuer, card, wallet-token, platform-key, event, audit)');
  let config: AppConfig;
  try {
    config = loadAppConfig();
  } catch (error) {
    return fail('invalid configuration', error instanceof ConfigError ? error.message : String(error));
  }
  // Every command but `migrate` applies pending migrations first (MIGRATE_ON_START), so the
  // CLI works on a fresh database; `migrate` does it itself and reports what it applied.
  if (argv[0] === 'migrate') config = new AppConfig({ ...config, migrateOnStart: false });

  let failed = false;
  const app = await CommandFactory.createWithoutRunning(CliModule.forRoot(config), {
    logger: false,
    // a failed start (say, no database) reaches main's catch, instead of Nest exiting silently
    abortOnError: false,
    // commander's own errors (unknown command or option, missing or bad value) as JSON
    outputConfiguration: {
      outputError: (message) => {
        failed = true;
        printFailure('usage', message.replace(/^error: /, '').trim());
      },
    },
    errorHandler: (error) => {
      const { exitCode } = error as Error & { exitCode?: number };
      process.exit(exitCode === 0 ? 0 : 1);
    },
    serviceErrorHandler: (error) => {
      failed = true;
      const { code, message } = failureOf(error);
      printFailure(code, message);
    },
  });
  try {
    await CommandFactory.runApplication(app);
  } finally {
    await app.close();
  }
  process.exitCode = failed ? 1 : 0;
}

function fail(code: string, message: string): void {
  printFailure(code, message);
  process.exitCode = 1;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const { code, message } = failureOf(error);
  fail(code, message);
});
