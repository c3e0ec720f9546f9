// Lint rules: typescript-eslint's recommended set, plus the layering of src/ (dependencies point only downward).
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/, bottom to top. A folder may import from its own folder and from any folder in a lower row,
 * never from a higher row or from another folder in its own row, so the import graph of src/ has no upward
 * arrow and no cycle across folders. docs/architecture.md says what each folder is for.
 */
const layers = [
  ['core'],
  ['metrics'],
  ['state'],
  ['time'],
  ['operators'],
  ['windowing', 'cep', 'connectors'],
  ['graph'],
  ['runtime'],
  ['execution'],
  ['web'],
  ['api'],
  ['cli', 'testing'],
];

const below = (row) => layers.slice(0, row).flat();

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'bench/flink/**',
      'bench/results/**',
      '.weir-tmp/**',
      '.stryker-tmp/**',
      'reports/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-this-alias': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
      // Named state interfaces (ReducingState, AggregatingState) mirror Flink's even when they add no member.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    // The layering. Tests beside the code may use anything (a window test drives a whole job); the root entry
    // src/index.ts re-exports from every layer.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts', 'src/index.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': layers.flat().map((name) => ({ type: name, pattern: `src/${name}` })),
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          policies: layers.flatMap((row, index) =>
            row.map((name) => ({
              from: { element: { type: name } },
              allow: { to: { element: { types: { anyOf: [name, ...below(index)] } } } },
            })),
          ),
        },
      ],
      'boundaries/no-unknown-files': 'error',
    },
  },
  {
    // The dashboard is plain JavaScript that runs in the browser.
    files: ['src/web/dashboard/**/*.js'],
    languageOptions: {
      globals: { document: 'readonly', fetch: 'readonly', setTimeout: 'readonly', Intl: 'readonly' },
    },
  },
);
