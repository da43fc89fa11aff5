/**
 * The embedded upstream: a real HTTP server (node:http) implementing
 * `upstream/openapi.yaml` over seeded data, with JWT auth, stage rules, a request log
 * and per-operation fault injection. The five upstream hosts are five path prefixes of
 * one port, so a client's base-URL path joining is exercised for real.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONTRACT, HOSTS, OPERATION_NAMES, type OperationName, type UpstreamUrls } from '../upstream/contract.js';
import { createSeedData, type SeedData } from './data.js';
import { applyFault, FAULT_MODES, type FaultMode } from './faults.js';
import { HANDLERS, takesAccessToken, type World } from './handlers.js';
import { checkAdvanceEveryMs, createOrderMover, MOVING_CUSTOMER, scheduleMoves, type OrderMove } from './moves.js';
import {
  errorBody,
  namedOrderIds,
  parseBearer,
  parseBody,
  parseQuery,
  readBody,
  SimulatedError,
  unauthorized,
  type Call,
  type Reply,
} from './request.js';
import { resolveRoute, UPSTREAM_PATH_PREFIXES, type Resolution } from './routes.js';
import { createTokenIssuer, type TokenIssuer } from './tokens.js';

export type { SeedData, SeedUser } from './data.js';
export { FAULT_MODES, OVERSIZED_BODY_BYTES, type FaultMode } from './faults.js';
export { DEMO_ADVANCE_EVERY_MS, MAX_ADVANCE_EVERY_MS, MOVING_CUSTOMER, MOVING_STAGES, type OrderMove } from './moves.js';

export interface DemoCustomer {
  username: string;
  password: string;
  userId: string;
  description: string;
}

export interface RequestLogEntry {
  operation: OperationName | 'unknown';
  method: string;
  /** The path after the host's prefix, e.g. /order-payments (the whole path when no prefix matched). */
  path: string;
  /** Query parameters as received (the first value of a repeated one). */
  query: Record<string, string>;
  /** e.g. { order_id: '...' } for shippingAddresses. */
  pathParams: Record<string, string>;
  /** Every order id / reservation id this call named (query, path or body). */
  orderIds: string[];
  /** The raw bearer token received, null when absent. */
  bearer: string | null;
  /**
   * The user the bearer verified as (valid and unexpired; on refreshTokens also an expired
   * access token or a live refresh token), null if missing/invalid.
   */
  userId: string | null;
  /** Status sent; 0 while pending and for hang/reset. */
  status: number;
  /** Date.now() when received. */
  at: number;
}

export interface SimulatorOptions {
  port?: number;
  host?: string;
  latencyMs?: number;
  jitterMs?: number;
  /** HS256 secret; random per simulator when absent. */
  jwtSecret?: string;
  /**
   * The request log keeps at least this many of the most recent entries (older ones are
   * dropped in batches, so a long-running process does not grow without bound). Default 10000.
   */
  maxLogEntries?: number;
  /**
   * Serves `GET /__simulator/stats` (calls per operation since start or the last
   * `POST /__simulator/stats/reset`), outside the five host prefixes and the request log.
   * Off by default; the standalone process (the benchmark's) turns it on.
   */
  statsEndpoint?: boolean;
  /**
   * The demo's moving order (moves.ts: production@demo.test's) takes its next stage every
   * this many ms, counted from its last move, and `POST /__simulator/advance` moves it at once.
   * 0, the default: it never moves on its own and that endpoint is not served, so a test sees
   * exactly the seeded data unless it calls `advance()`. `npm start`'s embedded simulator and
   * `npm run simulator` use DEMO_ADVANCE_EVERY_MS (a minute).
   */
  advanceEveryMs?: number;
}

export interface Simulator {
  urls: UpstreamUrls;
  customers: DemoCustomer[];
  /** The live data it serves: changes made here show in the next answers. */
  data: SeedData;
  /** Appended on every request (the same array for the simulator's lifetime). */
  requestLog: RequestLogEntry[];
  clearLog(): void;
  setFault(operation: OperationName, mode: FaultMode | null): void;
  clearFaults(): void;
  setLatency(fixedMs: number, jitterMs?: number): void;
  /** Moves the demo's moving order to its next stage now (on a schedule, the next move is then a full interval away). */
  advance(): OrderMove;
  /** How the demo's order moves on its own: whose, how often, and the URL that moves it at once; null when it never does. */
  moving: { username: string; everyMs: number; advanceUrl: string } | null;
  /** An access token for a user id (any string); e.g. expiresInSeconds -60 for an expired one. */
  issueAccessToken(userId: string, options?: { expiresInSeconds?: number }): Promise<string>;
  /** Revokes an access token: every call with it is refused (401) from now on. */
  revokeAccessToken(token: string): void;
  /** Stops listening and ends every connection, hung requests included. */
  close(): Promise<void>;
}

const DEFAULT_MAX_LOG_ENTRIES = 10_000;
/** Where the opt-in stats endpoint lives: outside every host prefix. */
export const STATS_PATH = '/__simulator/stats';
/** Where the demo's order is moved at once (served when it moves on its own: `advanceEveryMs`). */
export const ADVANCE_PATH = '/__simulator/advance';

/** The request log, and calls per operation for the stats endpoint (counters: free under load). */
function createRequestLog(maxEntries: number) {
  const entries: RequestLogEntry[] = [];
  let counts: Record<string, number> = {};
  let since = new Date().toISOString();
  return {
    entries,
    append(entry: RequestLogEntry) {
      counts[entry.operation] = (counts[entry.operation] ?? 0) + 1;
      entries.push(entry);
      // Trim in batches so appending stays O(1) on average.
      if (entries.length > 2 * maxEntries) entries.splice(0, entries.length - maxEntries);
    },
    stats: () => ({ since, total: Object.values(counts).reduce((sum, count) => sum + count, 0), operations: counts }),
    resetStats() {
      counts = {};
      since = new Date().toISOString();
    },
  };
}
type RequestLog = ReturnType<typeof createRequestLog>;

/** Who the bearer is, for the log and the handlers (the handlers decide what is accepted). */
async function authenticate(issuer: TokenIssuer, operation: OperationName | null, bearer: string | null) {
  const auth = operation ? CONTRACT[operation].auth : 'none';
  if (auth === 'none' || bearer === null) return { check: null, userId: null };
  if (auth === 'refresh') {
    const owner = issuer.refreshTokenOwner(bearer);
    if (owner !== null) return { check: null, userId: owner };
    const check = await issuer.checkAccessToken(bearer);
    return { check, userId: check.kind === 'invalid' ? null : check.userId };
  }
  const check = await issuer.checkAccessToken(bearer);
  return { check, userId: check.kind === 'valid' ? check.userId : null };
}

/** A request read and logged: its route, the call for a handler, its log entry. */
async function receive(req: IncomingMessage, issuer: TokenIssuer, log: RequestLog) {
  const at = Date.now();
  const method = (req.method ?? 'GET').toUpperCase();
  const rawUrl = req.url ?? '/';
  const queryAt = rawUrl.indexOf('?');
  const rawPath = queryAt >= 0 ? rawUrl.slice(0, queryAt) : rawUrl;
  const { query, repeated } = parseQuery(queryAt >= 0 ? rawUrl.slice(queryAt + 1) : '');
  const resolution = resolveRoute(method, rawPath);
  const operation = resolution.kind === 'route' ? resolution.operation : null;
  const pathParams = resolution.kind === 'route' ? resolution.pathParams : {};
  const bearer = parseBearer(req.headers.authorization);

  const raw = await readBody(req);
  if (raw === null) return null; // the client went away
  const { check, userId } = await authenticate(issuer, operation, bearer);
  const entry: RequestLogEntry = {
    operation: operation ?? 'unknown',
    method,
    path: resolution.hostPath,
    query,
    pathParams,
    orderIds: namedOrderIds(operation, query, pathParams),
    bearer,
    userId,
    status: 0,
    at,
  };
  log.append(entry);
  const call: Call | null = operation && {
    operation,
    path: resolution.hostPath,
    query,
    repeated,
    pathParams,
    body: parseBody(req, raw),
    bearer,
    check,
    userId: userId ?? '',
  };
  return { method, rawPath, resolution, call, tooLarge: raw.tooLarge, entry };
}

type Send = (status: number, code: string, message: string, headers?: Record<string, string>) => void;

/** A routed call's answer when no fault is set: the handler's reply, or its error's. */
async function answer(world: World, call: Call): Promise<Reply & { headers?: Record<string, string> }> {
  try {
    if (takesAccessToken(call.operation)) {
      if (call.bearer === null) throw unauthorized('UNAUTHORIZED', 'Missing bearer token');
      if (call.check?.kind === 'expired') throw unauthorized('TOKEN_EXPIRED', 'Access token has expired');
      if (call.check?.kind !== 'valid') throw unauthorized('UNAUTHORIZED', 'Invalid access token');
    }
    return await HANDLERS[call.operation](world, call);
  } catch (error) {
    const known = error instanceof SimulatedError ? error : new SimulatedError(500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
    return { status: known.status, body: errorBody(known.status, known.code, known.message, call.path), headers: known.headers };
  }
}

/** What a request that is not a routed call gets: 404, 405, 400 or 413; null when it is routable. */
function refusal(resolution: Resolution, tooLarge: boolean, method: string, rawPath: string): Parameters<Send> | null {
  if (resolution.kind === 'not-found') return [404, 'NOT_FOUND', `Cannot ${method} ${rawPath}`];
  if (resolution.kind === 'method-not-allowed')
    return [405, 'METHOD_NOT_ALLOWED', `Cannot ${method} ${rawPath}`, { allow: resolution.allow }];
  if (resolution.kind === 'bad-path') return [400, 'VALIDATION_ERROR', 'Malformed path parameter'];
  if (tooLarge) return [413, 'PAYLOAD_TOO_LARGE', 'Request body too large'];
  return null;
}

/** What the request handler works with: the world, the log, and the knobs tests turn. */
interface SimulatorState {
  world: World;
  log: RequestLog;
  faults: Map<OperationName, FaultMode>;
  latency: { fixedMs: number; jitterMs: number };
  /** Aborted on close: waits end, answers are no longer sent. */
  shutdown: AbortSignal;
}

async function handle({ world, log, faults, latency, shutdown }: SimulatorState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  req.on('error', () => {});
  const received = await receive(req, world.issuer, log);
  if (!received) return;
  const { method, rawPath, resolution, call, tooLarge, entry } = received;

  const waitMs = latency.fixedMs + (latency.jitterMs > 0 ? Math.random() * latency.jitterMs : 0);
  if (waitMs > 0 && !(await sleep(waitMs, true, { signal: shutdown }).catch(() => false))) return; // closing
  const gone = () => shutdown.aborted || res.destroyed;
  if (gone()) return;

  const reply = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
    entry.status = status;
    const text = JSON.stringify(payload);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };
  const sendError: Send = (status, code, message, headers = {}) =>
    reply(status, errorBody(status, code, message, resolution.hostPath), headers);

  const fault = call && faults.get(call.operation);
  if (fault) return applyFault(fault, req, res, entry, sendError);
  const refused = refusal(resolution, tooLarge, method, rawPath);
  if (refused) return sendError(...refused);
  // Every routed request has a call: refusal() answered all the others.
  const { status, body, headers } = await answer(world, call!);
  if (!gone()) reply(status, body, headers);
}

/** The simulator's own endpoints that are on (stats; advance, when the demo's order moves). */
interface ControlEndpoints {
  log?: RequestLog;
  moves?: MoveSchedule;
}
type MoveSchedule = ReturnType<typeof scheduleMoves>;

/** What a request to one of the control endpoints gets: status, body and headers. */
function controlAnswer({ log, moves }: ControlEndpoints, method: string, path: string): [number, unknown, Record<string, string>?] {
  if (log && method === 'GET' && path === STATS_PATH) return [200, log.stats()];
  if (log && method === 'POST' && path === `${STATS_PATH}/reset`) {
    log.resetStats();
    return [200, log.stats()];
  }
  if (moves && path === ADVANCE_PATH) {
    // Only POST moves the order: a browser's GET, a prefetch or a crawler must not.
    if (method === 'POST') return [200, moves.advance()];
    return [
      405,
      { statusCode: 405, error: 'Method Not Allowed', message: `Cannot ${method} ${path}: POST moves the order` },
      { allow: 'POST' },
    ];
  }
  return [404, { statusCode: 404, error: 'Not Found', message: `Cannot ${method} ${path}` }];
}

/** Serves the control endpoints that are on, outside the host prefixes and the request log; true when it answered. */
function serveControl(endpoints: ControlEndpoints, req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const ours = (endpoints.log && path.startsWith(STATS_PATH)) || (endpoints.moves && path.startsWith(ADVANCE_PATH));
  if (!ours) return false;
  const [status, payload, headers = {}] = controlAnswer(endpoints, req.method ?? 'GET', path);
  const text = JSON.stringify(payload);
  req.resume();
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
  return true;
}

function createSimulatorServer(state: SimulatorState, endpoints: ControlEndpoints) {
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    if (serveControl(endpoints, req, res)) return;
    handle(state, req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(errorBody(500, 'INTERNAL_SERVER_ERROR', 'Internal server error', req.url ?? '/')));
      }
    });
  });
  // Longer than any client's idle keep-alive, so a reused socket is never closed under it.
  server.headersTimeout = 66_000;
  return server;
}

/** Starts the simulator on its own port (0 by default) with a fresh copy of the seed data. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const world: World = { data: createSeedData(), issuer: createTokenIssuer(options.jwtSecret) };
  const shutdown = new AbortController();
  const state: SimulatorState = {
    world,
    log: createRequestLog(Math.max(1, options.maxLogEntries ?? DEFAULT_MAX_LOG_ENTRIES)),
    faults: new Map(),
    latency: { fixedMs: 0, jitterMs: 0 },
    shutdown: shutdown.signal,
  };
  const setLatency = (fixedMs: number, jitterMs = 0) => {
    for (const [name, value] of [
      ['fixedMs', fixedMs],
      ['jitterMs', jitterMs],
    ] as const) {
      if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number >= 0`);
    }
    Object.assign(state.latency, { fixedMs, jitterMs });
  };
  setLatency(options.latencyMs ?? 0, options.jitterMs ?? 0);
  const mover = createOrderMover(world.data);
  const everyMs = checkAdvanceEveryMs(options.advanceEveryMs ?? 0);

  const endpoints: ControlEndpoints = { log: options.statsEndpoint ? state.log : undefined };
  const server = createSimulatorServer(state, endpoints);
  const origin = await listenOn(server, options.port ?? 0, host);
  // Moving only once listening: a simulator that failed to start leaves no timer behind.
  if (everyMs > 0) endpoints.moves = scheduleMoves(mover, everyMs);
  let closing: Promise<void> | null = null;

  return {
    urls: Object.fromEntries(HOSTS.map((name) => [name, origin + UPSTREAM_PATH_PREFIXES[name]])) as UpstreamUrls,
    customers: world.data.users.map(({ username, password, description, user }) => ({ username, password, userId: user.id, description })),
    data: world.data,
    requestLog: state.log.entries,
    clearLog() {
      state.log.entries.length = 0;
    },
    setFault(operation, mode) {
      if (!OPERATION_NAMES.includes(operation)) throw new TypeError(`Unknown operation: ${String(operation)}`);
      if (mode === null) state.faults.delete(operation);
      else if (FAULT_MODES.includes(mode)) state.faults.set(operation, mode);
      else throw new TypeError(`Unknown fault mode: ${String(mode)}`);
    },
    clearFaults() {
      state.faults.clear();
    },
    setLatency,
    advance: () => endpoints.moves?.advance() ?? mover.advance(),
    moving: endpoints.moves ? { username: MOVING_CUSTOMER, everyMs, advanceUrl: origin + ADVANCE_PATH } : null,
    issueAccessToken(userId, tokenOptions = {}) {
      const email = world.data.users.find((account) => account.user.id === userId)?.user.email ?? null;
      return world.issuer.issueAccessToken(userId, email, tokenOptions.expiresInSeconds);
    },
    revokeAccessToken: (token) => world.issuer.revokeAccessToken(token),
    close() {
      closing ??= new Promise<void>((resolve) => {
        endpoints.moves?.stop();
        shutdown.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** Listens (rejecting on a listen error, e.g. the port in use); resolves to the origin clients use. */
async function listenOn(server: ReturnType<typeof createSimulatorServer>, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', () => {});
  return `http://${hostForUrl(host)}:${(server.address() as AddressInfo).port}`;
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
