// Lint rules: typescript-eslint's recommended set, plus the layering rule that keeps dependencies pointing inward.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/flink/**', 'bench/results/**', '.weir-tmp/**'] },
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
    // windowing, cep and connectors build on runtime, state and time, never on each other.
    files: ['src/windowing/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/cep/**', '**/connectors/**'] }] },
  },
  {
    files: ['src/cep/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/windowing/**', '**/connectors/**'] }] },
  },
  {
    files: ['src/connectors/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/windowing/**', '**/cep/**'] }] },
  },
);
