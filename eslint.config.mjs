import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'proto/gen/**',
      'web/src/gql/**',
      'web/test-artifacts/**',
      // k6 scripts (JavaScript run by k6, not Node); the Node load driver in load/driver and its
      // tests in load/test are linted like the rest.
      'load/!(driver|test)/**',
      'load/*.{js,mjs,cjs}',
      'coverage/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      // Async safety: a dropped promise in an event handler is a lost message or a crash.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration through the service config module (config.ts).',
        },
      ],
    },
  },
  {
    // The only places that read the environment: config modules, process entry points (which
    // hand it to their config), the test harness and tools.
    files: [
      '**/config.ts',
      '**/main.ts',
      '**/cli.ts',
      'packages/harness/**/*.ts',
      'tools/**',
      'load/driver/**',
      '**/test/**/*.ts',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // The web app runs in the browser: browser globals, the rules of hooks.
    files: ['web/src/**/*.ts', 'web/src/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
