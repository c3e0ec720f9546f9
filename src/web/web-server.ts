// WebServer: the REST API (Flink's routes) and the dashboard of the jobs running in this process, on node:http.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import { ConfigurationError } from '../core/errors.ts';
import { weirVersion } from '../core/weir-version.ts';
import type { RunningJob } from '../execution/running-job.ts';
import type { StreamNode } from '../graph/stream-graph.ts';
import {
  checkpointStatistics,
  jobDetails,
  jobExceptions,
  jobOverview,
  jobPlan,
  metricString,
  subtaskMetric,
  subtaskMetricNames,
  subtasksOf,
  vertexBackPressure,
  vertexDetails,
  vertexId,
  vertexWatermarks,
  type RecordDisplay,
} from './job-views.ts';
import { metricValue } from '../metrics/metric.ts';
import { DEFAULT_PARTIAL_MATCH_QUERY } from '../cep/operator/partial-match-snapshot.ts';

/** Options of the web UI: `execute(name, { webUi: { port } })` or `weir run --web-ui PORT`. */
export interface WebUiOptions {
  /** Port to listen on (0 picks a free one; Flink's default is 8081). */
  readonly port: number;
  /** Address to bind (default 127.0.0.1). Any other address requires `token`. */
  readonly host?: string;
  /**
   * A secret the endpoints that change a job (savepoint, stop, cancel) require as `Authorization: Bearer <token>`.
   * Required when `host` is not a loopback address; when set, required on loopback too.
   */
  readonly token?: string;
  /** How failing records appear in the exception history. */
  readonly exceptionRecords?: Partial<RecordDisplay>;
  /**
   * Keep serving after the job ended, showing its final state (status, metrics, checkpoint and exception
   * history), until the process receives SIGINT (Ctrl-C) or `JobClient.closeWebUi()` is called. Other jobs of
   * the process started with the same host and port then join this server rather than failing to bind.
   */
  readonly keepAlive?: boolean;
}

/** A savepoint or stop requested through the API, polled at `/jobs/:jid/savepoints/:triggerid`. */
interface AsyncOperation {
  status: 'IN_PROGRESS' | 'COMPLETED';
  location?: string;
  failure?: string;
  /** Whether a client has read the completed result (the server waits for that before closing). */
  reported: boolean;
}

/** How long a server whose jobs ended waits for clients to collect savepoint results before closing. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Servers later jobs of this process join, by the `host:port` they listen on, until they close: those started
 * with `keepAlive` and those a launcher holds open ({@link WebServer.hold}).
 */
const sharedServers = new Map<string, WebServer>();

const DASHBOARD_FILES: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/dashboard.js': 'dashboard.js',
  '/dashboard.css': 'dashboard.css',
};

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/**
 * Serves Flink's REST routes for the jobs of this process and the dashboard page (static files shipped with
 * Weir; the page fetches nothing from anywhere else). Safe by default: it binds to 127.0.0.1; binding anywhere
 * else needs a token, which every request that changes a job must carry; POST bodies must be JSON, so a web page
 * elsewhere cannot send one without a CORS preflight this server never grants.
 */
export class WebServer {
  private readonly server: Server;
  private readonly jobs: RunningJob[] = [];
  private readonly operations = new Map<string, AsyncOperation>();
  private readonly display: RecordDisplay;
  readonly host: string;

  private constructor(private readonly options: WebUiOptions) {
    this.host = options.host ?? '127.0.0.1';
    if (!isLoopback(this.host) && (options.token === undefined || options.token.length === 0)) {
      throw new ConfigurationError(
        `The web UI binds to ${this.host}, which is not a loopback address: set webUi.token (--web-ui-token) so that only holders of it can take savepoints, stop or cancel jobs`,
      );
    }
    this.display = {
      showRecords: options.exceptionRecords?.showRecords ?? true,
      maxRecordLength: options.exceptionRecords?.maxRecordLength ?? 200,
    };
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => send(res, 500, { errors: [String(error)] }));
    });
  }

  /** Starts a server; resolves once it listens. */
  static async start(options: WebUiOptions): Promise<WebServer> {
    const server = new WebServer(options);
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.server.listen(options.port, server.host, () => resolve());
    });
    server.boundPort = (server.server.address() as AddressInfo).port;
    return server;
  }

  /**
   * The server a job started with `options` serves on: a server of this process already listening on the same
   * host and port (not 0) that is kept alive or held open by a launcher, or a new one.
   */
  static async forJob(options: WebUiOptions): Promise<WebServer> {
    const host = options.host ?? '127.0.0.1';
    const shared = options.port === 0 ? undefined : sharedServers.get(`${host}:${options.port}`);
    if (shared !== undefined) {
      if (shared.options.token !== options.token) {
        throw new ConfigurationError(
          `The web UI on ${host}:${options.port} is kept open by an earlier job with another token; start this job with the same webUi.token or another port`,
        );
      }
      return shared;
    }
    const server = await WebServer.start(options);
    if (options.keepAlive === true) sharedServers.set(server.address, server);
    return server;
  }

  /**
   * Opens a server (or takes the shared one on the same host and port) and holds it open, between jobs too, until
   * {@link release}: every job of the process started with the same host and port (use {@link port} when
   * `options.port` is 0) joins it, so one address lists them all, as one Flink cluster's REST endpoint does.
   * `weir run` holds the server of `--web-ui` for the jobs its job file starts.
   *
   * @example
   * const server = await WebServer.hold({ port: 0 });
   * await env.execute('a', { webUi: { port: server.port } });
   * await env.execute('b', { webUi: { port: server.port } }); // /jobs/overview lists 'a' (FINISHED) and 'b'
   * await server.release();
   */
  static async hold(options: WebUiOptions): Promise<WebServer> {
    const server = await WebServer.forJob(options);
    sharedServers.set(server.address, server);
    server.holds++;
    return server;
  }

  /**
   * Ends a {@link hold}: once no job runs on the server and nothing else holds it, it closes, or, kept alive,
   * serves the final state until SIGINT (see {@link jobEnded}).
   */
  release(): Promise<void> {
    if (this.holds === 0) throw new Error('WebServer.release() without a hold');
    this.holds--;
    return this.idleIfUnused();
  }

  /** `host:port` as bound. */
  private get address(): string {
    return `${this.host}:${this.port}`;
  }

  /** The port it listens on (the one picked when started with port 0); still known once closed. */
  get port(): number {
    return this.boundPort;
  }

  private boundPort = 0;

  /** The dashboard's address. */
  get url(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${host}:${this.port}/`;
  }

  /** Jobs added and not ended yet. */
  private running = 0;
  /** Holds taken by {@link hold} and not released: the server stays open between jobs while there are any. */
  private holds = 0;
  /** While a kept-alive server outlives its jobs: closes it on SIGINT. */
  private onInterrupt: (() => void) | undefined = undefined;

  /** Makes a job visible on this server; call {@link jobEnded} when it ends. */
  addJob(job: RunningJob): void {
    this.jobs.push(job);
    this.running++;
    this.stopListeningForInterrupt();
  }

  /**
   * One of the server's jobs ended. Once none runs and no launcher holds it, the server closes (see
   * {@link close}), or, kept alive, goes on serving their final state until SIGINT: only then, so that Ctrl-C
   * still ends a running job the usual way.
   */
  jobEnded(): Promise<void> {
    this.running--;
    return this.idleIfUnused();
  }

  private idleIfUnused(): Promise<void> {
    if (this.running > 0 || this.holds > 0 || this.closed !== undefined) return Promise.resolve();
    if (this.options.keepAlive !== true) return this.close();
    if (this.onInterrupt !== undefined) return Promise.resolve();
    this.onInterrupt = () => {
      this.onInterrupt = undefined;
      void this.close(true);
    };
    process.once('SIGINT', this.onInterrupt);
    return Promise.resolve();
  }

  private stopListeningForInterrupt(): void {
    if (this.onInterrupt === undefined) return;
    process.off('SIGINT', this.onInterrupt);
    this.onInterrupt = undefined;
  }

  private closing: { resolve(): void; timer: NodeJS.Timeout } | undefined = undefined;

  private closed: Promise<void> | undefined = undefined;

  /**
   * Stops listening and closes idle connections. A savepoint or stop requested through the API whose result no
   * client has read yet holds the server open (up to 10 s) so that the client learns where it went, unless
   * `now` (an interrupt, or an explicit close of a kept-alive server) closes every connection at once.
   */
  close(now = false): Promise<void> {
    if (this.closed !== undefined) return this.closed;
    this.stopListeningForInterrupt();
    if (sharedServers.get(this.address) === this) sharedServers.delete(this.address);
    this.closed = new Promise((resolve) => {
      const finish = () => {
        if (this.closing !== undefined) clearTimeout(this.closing.timer);
        this.closing = undefined;
        this.server.close(() => resolve());
        if (now) this.server.closeAllConnections();
        else this.server.closeIdleConnections();
      };
      this.closing = { resolve: finish, timer: setTimeout(finish, CLOSE_GRACE_MS) };
      if (now) finish();
      else this.maybeClose();
    });
    return this.closed;
  }

  private maybeClose(): void {
    if (this.closing === undefined) return;
    for (const op of this.operations.values()) if (!op.reported) return;
    this.closing.resolve();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    const file = DASHBOARD_FILES[path];
    if (method === 'GET' && file !== undefined) return this.serveFile(res, file);
    const parts = path.split('/').filter((p) => p.length > 0);
    const now = Date.now();
    if (method === 'GET' && path === '/config') {
      return send(res, 200, {
        'refresh-interval': 1000,
        'timezone-name': 'UTC',
        'weir-version': weirVersion(),
      });
    }
    if (method === 'GET' && path === '/overview') {
      const count = (status: string) => this.jobs.filter((j) => j.status === status).length;
      return send(res, 200, {
        'jobs-running': count('RUNNING') + count('RESTARTING') + count('INITIALIZING'),
        'jobs-finished': count('FINISHED'),
        'jobs-cancelled': count('CANCELED'),
        'jobs-failed': count('FAILED'),
        'weir-version': weirVersion(),
      });
    }
    if (parts[0] !== 'jobs') return send(res, 404, { errors: [`Not found: ${path}`] });
    if (parts.length === 1 && method === 'GET') {
      return send(res, 200, { jobs: this.jobs.map((j) => ({ id: j.id, status: j.status })) });
    }
    if (parts.length === 2 && parts[1] === 'overview' && method === 'GET') {
      return send(res, 200, { jobs: this.jobs.map((j) => jobOverview(j, now)) });
    }
    const job = this.findJob(parts[1]!);
    if (job === undefined) return send(res, 404, { errors: [`Job ${parts[1]} not found`] });
    const rest = parts.slice(2);
    if (method === 'GET') return this.get(res, job, rest, url.searchParams, now);
    if (method === 'POST' || method === 'PATCH') {
      if (!this.authorised(req)) {
        return send(res, 401, { errors: ['This request changes a job: send Authorization: Bearer <token>'] });
      }
      if (method === 'PATCH' && rest.length === 0) {
        if (url.searchParams.get('mode') !== 'cancel')
          return send(res, 400, { errors: ['Only mode=cancel is supported'] });
        job.control?.cancel();
        return send(res, 202, {});
      }
      const body = await readJsonBody(req);
      if (body === undefined) {
        return send(res, 415, { errors: ['Send a JSON body with Content-Type: application/json'] });
      }
      return this.post(res, job, rest, body);
    }
    return send(res, 405, { errors: [`${method} is not supported on ${path}`] });
  }

  private get(
    res: ServerResponse,
    job: RunningJob,
    rest: string[],
    query: URLSearchParams,
    now: number,
  ): void | Promise<void> {
    const [section, id, sub, sub2] = rest;
    if (section === undefined) return send(res, 200, jobDetails(job, now));
    if (section === 'plan' && id === undefined) return send(res, 200, { plan: jobPlan(job) });
    if (section === 'checkpoints' && id === undefined) return send(res, 200, checkpointStatistics(job));
    if (section === 'exceptions' && id === undefined) return send(res, 200, jobExceptions(job, this.display));
    if (section === 'metrics' && id === undefined) return send(res, 200, this.jobMetrics(job, query));
    if (section === 'savepoints' && id !== undefined && sub === undefined) {
      const op = this.operations.get(`${job.id}/${id}`);
      if (op === undefined) return send(res, 404, { errors: [`No savepoint request ${id}`] });
      if (op.status === 'COMPLETED') {
        op.reported = true;
        this.maybeClose();
      }
      return send(res, 200, {
        status: { id: op.status },
        operation:
          op.status === 'IN_PROGRESS'
            ? null
            : op.failure !== undefined
              ? { 'failure-cause': { class: 'WeirError', 'stack-trace': op.failure } }
              : { location: op.location },
      });
    }
    if (section === 'vertices' && id !== undefined) {
      const node = job.graph.nodes.find((n) => vertexId(n) === id);
      if (node === undefined) return send(res, 404, { errors: [`Vertex ${id} not found in job ${job.id}`] });
      if (sub === undefined) return send(res, 200, vertexDetails(job, node, now));
      if (sub === 'watermarks') return send(res, 200, vertexWatermarks(job, node));
      if (sub === 'backpressure') return send(res, 200, vertexBackPressure(job, node, now));
      if (sub === 'metrics') return send(res, 200, this.vertexMetrics(job, node, query));
      if (sub === 'subtasks' && sub2 === 'metrics') return send(res, 200, this.aggregated(job, node, query));
      if (sub === 'cep-partial-matches' && sub2 === undefined)
        return this.partialMatches(res, job, node, query);
    }
    send(res, 404, { errors: [`Not found: /jobs/${job.id}/${rest.join('/')}`] });
  }

  private post(res: ServerResponse, job: RunningJob, rest: string[], body: Record<string, unknown>): void {
    const [section] = rest;
    const control = job.control;
    if (control === undefined || job.endTime !== undefined) {
      return send(res, 409, { errors: [`Job ${job.id} is ${job.status}, not running`] });
    }
    if (rest.length === 1 && section === 'cancel') {
      control.cancel();
      return send(res, 202, {});
    }
    if (rest.length !== 1 || (section !== 'savepoints' && section !== 'stop')) {
      return send(res, 404, { errors: [`Not found: POST /jobs/${job.id}/${rest.join('/')}`] });
    }
    const dir = section === 'stop' ? body.targetDirectory : body['target-directory'];
    if (typeof dir !== 'string' || dir.length === 0) {
      const field = section === 'stop' ? 'targetDirectory' : 'target-directory';
      return send(res, 400, {
        errors: [`The body needs "${field}": the directory to write the savepoint under`],
      });
    }
    const stop = section === 'stop' || body['cancel-job'] === true;
    const requestId = randomBytes(16).toString('hex');
    const op: AsyncOperation = { status: 'IN_PROGRESS', reported: false };
    this.operations.set(`${job.id}/${requestId}`, op);
    (stop ? control.stopWithSavepoint(dir) : control.triggerSavepoint(dir)).then(
      (location) => {
        op.status = 'COMPLETED';
        op.location = location;
      },
      (error: unknown) => {
        op.status = 'COMPLETED';
        op.failure = error instanceof Error ? error.message : String(error);
      },
    );
    send(res, 202, { 'request-id': requestId });
  }

  /**
   * `GET /jobs/:jid/vertices/:vid/cep-partial-matches[?max-keys=N&max-events=M]`: a CEP vertex's live partial
   * matches per key and subtask, records shown as the exception history shows them. Read on request only.
   */
  private async partialMatches(
    res: ServerResponse,
    job: RunningJob,
    node: StreamNode,
    query: URLSearchParams,
  ): Promise<void> {
    if (!node.transformation.isCep) {
      return send(res, 404, { errors: [`Vertex ${vertexId(node)} ('${node.name}') is not a CEP operator`] });
    }
    const attempt = job.attempt;
    if (job.status !== 'RUNNING' || attempt === undefined) {
      return send(res, 409, {
        errors: [`Job ${job.id} is ${job.status}: partial matches are shown while it runs`],
      });
    }
    const limit = (name: string, fallback: number): number | undefined => {
      const text = query.get(name);
      if (text === null) return fallback;
      const n = Number(text);
      return Number.isInteger(n) && n >= 0 && n <= 10_000 ? n : undefined;
    };
    const maxKeys = limit('max-keys', DEFAULT_PARTIAL_MATCH_QUERY.maxKeys);
    const maxEvents = limit('max-events', DEFAULT_PARTIAL_MATCH_QUERY.maxEvents);
    if (maxKeys === undefined || maxEvents === undefined) {
      return send(res, 400, { errors: ['max-keys and max-events must be whole numbers from 0 to 10000'] });
    }
    const subtasks = await attempt.partialMatches(node, { ...this.display, maxKeys, maxEvents });
    send(res, 200, { id: vertexId(node), name: node.name, now: Date.now(), subtasks });
  }

  /** Flink's metric route: without `get`, the available ids; with it, `{ id, value }` per id (values as strings). */
  private vertexMetrics(job: RunningJob, node: StreamNode, query: URLSearchParams): unknown {
    const subtasks = subtasksOf(job, node);
    const get = query.get('get');
    if (get === null) {
      return subtasks.flatMap((s) => subtaskMetricNames(s).map((name) => ({ id: `${s.index}.${name}` })));
    }
    return get
      .split(',')
      .map((id) => {
        const dot = id.indexOf('.');
        const index = Number(id.slice(0, dot));
        const subtask = subtasks.find((s) => s.index === index);
        const value = subtask === undefined ? undefined : subtaskMetric(subtask, id.slice(dot + 1));
        return { id, value: metricString(value) };
      })
      .filter((m) => m.value !== undefined);
  }

  /** Flink's aggregated subtask metrics: `min`, `max`, `avg`, `sum` over the vertex's subtasks. */
  private aggregated(job: RunningJob, node: StreamNode, query: URLSearchParams): unknown {
    const subtasks = subtasksOf(job, node);
    const names = (query.get('get') ?? '').split(',').filter((n) => n.length > 0);
    return names.flatMap((name) => {
      const values = subtasks
        .map((s) => subtaskMetric(s, name))
        .filter((v): v is number => v !== undefined && !Number.isNaN(v));
      if (values.length === 0) return [];
      const sum = values.reduce((a, b) => a + b, 0);
      return [
        {
          id: name,
          min: metricString(Math.min(...values)),
          max: metricString(Math.max(...values)),
          avg: metricString(sum / values.length),
          sum: metricString(sum),
        },
      ];
    });
  }

  private jobMetrics(job: RunningJob, query: URLSearchParams): unknown {
    const group = job.metrics?.jobGroup;
    const registry = job.metrics?.registry;
    if (group === undefined || registry === undefined) return [];
    const own = registry.all().filter((m) => m.group === group);
    const get = query.get('get');
    if (get === null) return own.map((m) => ({ id: m.name }));
    const wanted = new Set(get.split(','));
    return own
      .filter((m) => wanted.has(m.name))
      .map((m) => ({ id: m.name, value: metricString(metricValue(m.metric)) }));
  }

  private findJob(id: string): RunningJob | undefined {
    return this.jobs.find((j) => j.id === id);
  }

  private authorised(req: IncomingMessage): boolean {
    const token = this.options.token;
    if (token === undefined || token.length === 0) return true;
    const header = req.headers.authorization ?? '';
    const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
    const expected = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private async serveFile(res: ServerResponse, file: string): Promise<void> {
    const body = await readFile(new URL(`./dashboard/${file}`, import.meta.url));
    res.writeHead(200, {
      'content-type': CONTENT_TYPES[file.slice(file.lastIndexOf('.') + 1)]!,
      'cache-control': 'no-cache',
      // The page may load only its own scripts and styles and talk only to this server.
      'content-security-policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    });
    res.end(body);
  }
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' });
  res.end(JSON.stringify(body));
}

/** The JSON body of a request, or undefined when it is not JSON (an empty body reads as `{}`). */
async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const type = req.headers['content-type'] ?? '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) return undefined;
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!type.startsWith('application/json')) return undefined;
  if (text.trim().length === 0) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
