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
    globalSetup: ['./test/support/global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.spec.ts'] } },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/**/*.e2e-spec.ts'], testTimeout: 30_000, hookTimeout: 60_000 },
      },
    ],
  },
});
