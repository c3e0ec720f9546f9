// RestClient: the calls the `weir` command makes to a running job's REST API (as Flink's CLI does to its endpoint).
import { WeirError } from '../core/errors.ts';

/** One entry of `GET /jobs/overview`. */
export interface JobOverview {
  readonly jid: string;
  readonly name: string;
  readonly state: string;
  readonly 'start-time': number;
  readonly duration: number;
}

/** A savepoint or stop request as `GET /jobs/:jid/savepoints/:triggerid` reports it. */
interface SavepointStatus {
  status: { id: 'IN_PROGRESS' | 'COMPLETED' };
  operation: null | { location?: string; 'failure-cause'?: { 'stack-trace': string } };
}

/** Job states after which a job does nothing more (Flink's globally terminal states). */
const TERMINAL = new Set(['FINISHED', 'FAILED', 'CANCELED']);

/**
 * A client of one REST endpoint (`http://127.0.0.1:8081/` by default). Every failure is a WeirError that names
 * the address and what the server said, so the command can print it as it is.
 */
export class RestClient {
  private readonly base: URL;

  constructor(
    address: string,
    private readonly token: string | undefined,
    /** Pause between polls of an asynchronous operation. */
    private readonly pollMs = 100,
  ) {
    try {
      this.base = new URL(address.includes('://') ? address : `http://${address}`);
    } catch {
      throw new WeirError(`Not a REST address: '${address}' (expected e.g. http://127.0.0.1:8081)`);
    }
  }

  /** The jobs the endpoint serves. */
  async jobs(): Promise<JobOverview[]> {
    return ((await this.call('GET', '/jobs/overview')) as { jobs: JobOverview[] }).jobs;
  }

  /** A job's id from its id or its name (which must then name exactly one job on this endpoint). */
  async resolve(job: string): Promise<string> {
    const jobs = await this.jobs();
    if (jobs.some((j) => j.jid === job)) return job;
    const named = jobs.filter((j) => j.name === job);
    if (named.length === 1) return named[0]!.jid;
    if (named.length > 1) {
      throw new WeirError(
        `${named.length} jobs are named '${job}' at ${this.base.origin}: give the job id (${named.map((j) => j.jid).join(', ')})`,
      );
    }
    throw new WeirError(`No job '${job}' at ${this.base.origin} (see weir list)`);
  }

  /** Takes a savepoint (or, with `stop`, stops the job with one) under `dir`; resolves with its path. */
  async savepoint(jid: string, dir: string, stop: boolean): Promise<string> {
    const { 'request-id': requestId } = (await this.call(
      'POST',
      stop ? `/jobs/${jid}/stop` : `/jobs/${jid}/savepoints`,
      stop ? { targetDirectory: dir, drain: false } : { 'target-directory': dir, 'cancel-job': false },
    )) as { 'request-id': string };
    for (;;) {
      const status = (await this.call('GET', `/jobs/${jid}/savepoints/${requestId}`)) as SavepointStatus;
      if (status.status.id === 'COMPLETED') {
        const failure = status.operation?.['failure-cause'];
        if (failure !== undefined) throw new WeirError(`The savepoint failed: ${failure['stack-trace']}`);
        return status.operation!.location!;
      }
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
    }
  }

  /**
   * Cancels a job and waits until it is no longer running: its state is terminal, or the endpoint closed (a job
   * run by `weir run` serves its API only while it runs).
   */
  async cancel(jid: string): Promise<void> {
    await this.call('PATCH', `/jobs/${jid}?mode=cancel`);
    for (;;) {
      let state: string;
      try {
        state = ((await this.call('GET', `/jobs/${jid}`)) as { state: string }).state;
      } catch (error) {
        if ((error as { unreachable?: boolean }).unreachable === true) return;
        throw error;
      }
      if (TERMINAL.has(state)) return;
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
    }
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const url = new URL(path, this.base);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          ...(body !== undefined || method !== 'GET' ? { 'content-type': 'application/json' } : {}),
          ...(this.token !== undefined ? { authorization: `Bearer ${this.token}` } : {}),
        },
        body: body === undefined ? (method === 'GET' ? undefined : '{}') : JSON.stringify(body),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw Object.assign(
        new WeirError(
          `Cannot reach the REST API at ${this.base.origin} (${cause?.code ?? cause?.message ?? String(error)}): is a job running with --web-ui?`,
        ),
        { unreachable: true },
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text.length === 0 ? {} : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const errors = (parsed as { errors?: string[] } | undefined)?.errors;
      throw new WeirError(
        `${method} ${url.pathname}${url.search} answered ${response.status}: ${errors?.join('; ') ?? text}`,
      );
    }
    if (parsed === undefined) throw new WeirError(`${method} ${url.pathname} answered with no JSON: ${text}`);
    return parsed;
  }
}
