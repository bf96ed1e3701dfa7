import { defineConfig } from 'vitest/config';

// Two projects: unit specs beside the code (src/**/*.spec.ts) and e2e suites that boot the
// real application against MariaDB and SQLite (test/**/*.e2e-spec.ts). Vite's Oxc transformer
// compiles the legacy decorators with their metadata, which Nest's dependency injection and
// class-validator read; `npm run typecheck` is the type check.
export default defineConfig({
  oxc: { decorator: { legacy: true, emitDecoratorMetadata: true } },
  test: {
    // Two files at a time whatever the cores (Vitest's default is one fewer than the CPUs: one
    // on the 2-core VM). The e2e suites mostly wait on receivers, timers and child processes, so
    // two halve the run; and every suite must hold on a busy machine anyway.
    maxWorkers: 2,
    projects: [
      // No global setup: the unit tier builds nothing and needs no database, so that it runs in
      // seconds on every save (issue 26).
      { extends: true, test: { name: 'unit', include: ['src/**/*.spec.ts'] } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.e2e-spec.ts'],
          // Builds dist/ and finds MariaDB, once per run and only when an e2e file runs.
          globalSetup: ['./test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
