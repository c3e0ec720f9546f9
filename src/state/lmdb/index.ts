// weir/lmdb: the LMDB state backend, a subpath of its own so that `import 'weir'` loads no native addon.
export { LmdbStateBackend } from './lmdb-state-backend.ts';
export type { LmdbStateBackendOptions } from './lmdb-state-backend.ts';

// The contract this entry's backend implements (the same declaration as weir's own export).
export type { StateBackend } from '../state-backend.ts';
