import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// Two projects: unit specs beside the code (src/**/*.spec.ts) and e2e suites that boot the
// real application against MariaDB and SQLite (test/**/*.e2e-spec.ts). SWC transpiles with
// decorator metadata (esbuild cannot emit it); `npm run typecheck` is the type check.
export default defineConfig({
  plugins: [
    swc.vite({
      module: { type: 'es6' },
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
        keepClassNames: true,
      },
    }),
  ],
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
