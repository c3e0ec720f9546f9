// The LMDB state backend's public surface.
export { LmdbStateBackend } from './lmdb-state-backend.ts';
export type { LmdbStateBackendOptions } from './lmdb-state-backend.ts';
export { LmdbKeyedStateBackend } from './lmdb-keyed-state-backend.ts';
export type { LmdbKeyedStateBackendOptions } from './lmdb-keyed-state-backend.ts';
