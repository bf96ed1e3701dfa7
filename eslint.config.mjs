// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'build/', 'coverage/', 'node_modules/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  // One way to open a transaction (issue 26): a service runs its change in UnitOfWork.run; only
  // database/ (the unit of work itself, and Database.atomically's script) calls Database.transaction.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/database/**', 'src/**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='transaction']",
          message: 'Open a transaction with UnitOfWork.run (src/database/unit-of-work.ts), and pass its tx to the repositories.',
        },
      ],
    },
  },
  // CommonJS files (a test preload, `node --require`): require is how they import.
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
