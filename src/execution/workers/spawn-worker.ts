// spawnWorker: starts a worker thread on a module of this package or of a job, with the parent's module loaders.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The module loaders the process was started with (`--import x`), as URLs, for a worker to register again.
 * Node 20 does not apply a loader registered on the main thread to worker threads, so a job written in TypeScript
 * and run through `node --import tsx` (or `tsx job.ts`) would fail to load in its workers without this. tsx's
 * `--import` entry registers itself on the main thread only: for it the worker calls tsx's own `register()`.
 */
function parentLoaders(): string[] {
  const require = createRequire(join(process.cwd(), 'noop.js'));
  const argv = process.execArgv;
  const specifiers: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--import' && i + 1 < argv.length) specifiers.push(argv[++i]!);
    else if (arg.startsWith('--import=')) specifiers.push(arg.slice('--import='.length));
  }
  return specifiers.map((specifier) => {
    if (specifier.startsWith('file:') || specifier.startsWith('data:')) return specifier;
    try {
      return pathToFileURL(require.resolve(specifier)).href;
    } catch {
      return specifier;
    }
  });
}

/** The worker's first code: register the parent's loaders, then import `entry`. */
function bootstrapCode(entry: string): string {
  return `(async () => {
  for (const loader of ${JSON.stringify(parentLoaders())}) {
    const tsx = /\\/tsx\\/dist\\/loader\\.mjs$/.exec(loader);
    if (tsx !== null) {
      const api = await import(loader.slice(0, tsx.index) + '/tsx/dist/esm/api/index.mjs');
      api.register();
    } else await import(loader);
  }
  await import(${JSON.stringify(entry)});
})().catch((error) => { process.nextTick(() => { throw error; }); });`;
}

/**
 * Starts a worker thread running the module at `entry` (a file URL) after registering the parent's module loaders,
 * so TypeScript sources load in the worker exactly as they did on the main thread.
 */
export function spawnWorker(entry: URL | string, options: WorkerOptions = {}): Worker {
  return new Worker(bootstrapCode(String(entry)), { ...options, eval: true });
}
