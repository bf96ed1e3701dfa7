import { defineConfig } from 'vitest/config';

// Two projects: unit specs beside the code (src/**/*.spec.ts) and e2e suites that boot the
// real application against MariaDB and SQLite (test/**/*.e2e-spec.ts). Vite's Oxc transformer
// compiles the legacy decorators with their metadata, which Nest's dependency injection and
// class-validator read; `npm run typecheck` is the type check.
export default defineConfig({
  oxc: { decorator: { legacy: true, emitDecoratorMetadata: true } },
  test: {
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
