/**
 * The embedded upstream, implementing `upstream/openapi.yaml` over seeded data, with JWT
 * auth, stage rules, a request log and per-operation fault injection. One handler takes a
 * request and replies (`createSimulator`, in process: the tests' gateways reach it so); a
 * real HTTP server (node:http) is a thin adapter over it (`startSimulator`), where the five
 * upstream hosts are five path prefixes of one port, so a client's base-URL path joining,
 * keep-alive and the faults are exercised for real.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONTRACT, HOSTS, OPERATION_NAMES, type OperationName, type UpstreamUrls } from '../upstream/contract.js';
import { createSeedData, type SeedData } from './data.js';
import { faultResponse, FAULT_MODES, type FaultMode } from './faults.js';
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
  type SimulatorResponse,
  type Call,
  type RawBody,
  type Reply,
} from './request.js';
import { resolveRoute, UPSTREAM_PATH_PREFIXES, type Resolution } from './routes.js';
import { createTokenIssuer, type TokenIssuer } from './tokens.js';

export type { SeedData, SeedUser } from './data.js';
export { FAULT_MODES, OVERSIZED_BODY_BYTES, type FaultMode } from './faults.js';
export { rawBody, type SimulatorResponse, type RawBody, type StreamedBody } from './request.js';
export { DEMO_ADVANCE_EVERY_MS, MAX_ADVANCE_EVERY_MS, MOVING_CUSTOMER, MOVING_STAGES, type OrderMove } from './moves.js';

export interface DemoCustomer {
  username: string;
  password: string;
  userId: string;
  description: string;
}

/** The demo logins as the sign-in pages offer them: the customer whose order has every part first. */
export const offeredDemoLogins = (customers: readonly DemoCustomer[]) =>
  customers
    .map(({ username, password, description }) => ({ username, password, description }))
    .sort((a, b) => Number(b.username === 'ready@demo.test') - Number(a.username === 'ready@demo.test'));

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
  /** The live data it serves: changes made here show in the next responses. */
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

/** One request to the simulator, however it came: read by its HTTP server, or given in process. */
export interface SimulatorRequest {
  method: string;
  /** The path and query as sent, e.g. `/order-service/orders?customer_id=…`. */
  target: string;
  /** Its headers, names in lower case, as Node's HTTP server gives them. */
  headers: IncomingHttpHeaders;
  body: RawBody;
  /** Aborted when the caller goes away: a hung call ends, and nothing is answered. */
  signal?: AbortSignal;
}

/**
 * What the simulator does with a request: answers it, drops its connection (`reset`: the
 * reset fault, or the simulator closing while the call waits), or nothing (null: the caller
 * went away first).
 */
export type SimulatorReply = SimulatorResponse | 'reset' | null;

/** A simulator running in this process (createSimulator's, or startSimulator's beside its HTTP server), reachable without a socket. */
export interface InProcessSimulator extends Simulator {
  /** Takes one request and replies, with no socket: the latency, the faults and the log as over HTTP. */
  handle(request: SimulatorRequest): Promise<SimulatorReply>;
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
async function receive({ method: rawMethod, target, headers, body: raw }: SimulatorRequest, issuer: TokenIssuer, log: RequestLog) {
  const at = Date.now();
  const method = rawMethod.toUpperCase();
  const queryAt = target.indexOf('?');
  const rawPath = queryAt >= 0 ? target.slice(0, queryAt) : target;
  const { query, repeated } = parseQuery(queryAt >= 0 ? target.slice(queryAt + 1) : '');
  const resolution = resolveRoute(method, rawPath);
  const operation = resolution.kind === 'route' ? resolution.operation : null;
  const pathParams = resolution.kind === 'route' ? resolution.pathParams : {};
  const bearer = parseBearer(headers.authorization);

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
    body: parseBody(headers['content-type'], raw),
    bearer,
    check,
    userId: userId ?? '',
  };
  return { method, rawPath, resolution, call, tooLarge: raw.tooLarge, entry };
}

type ErrorResponse = (status: number, code: string, message: string, headers?: Record<string, string>) => SimulatorResponse;

/** A JSON response. */
const jsonResponse = (status: number, payload: unknown, headers: Record<string, string> = {}): SimulatorResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(payload),
});

/** A routed call's reply when no fault is set: the handler's reply, or its error's. */
async function callReply(world: World, call: Call): Promise<Reply & { headers?: Record<string, string> }> {
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
function refusal(resolution: Resolution, tooLarge: boolean, method: string, rawPath: string): Parameters<ErrorResponse> | null {
  if (resolution.kind === 'not-found') return [404, 'NOT_FOUND', `Cannot ${method} ${rawPath}`];
  if (resolution.kind === 'method-not-allowed')
    return [405, 'METHOD_NOT_ALLOWED', `Cannot ${method} ${rawPath}`, { allow: resolution.allow }];
  if (resolution.kind === 'bad-path') return [400, 'VALIDATION_ERROR', 'Malformed path parameter'];
  if (tooLarge) return [413, 'PAYLOAD_TOO_LARGE', 'Request body too large'];
  return null;
}

/** What the request handler works with: the world, the log, the knobs tests turn, and the control endpoints that are on. */
interface SimulatorState {
  world: World;
  log: RequestLog;
  faults: Map<OperationName, FaultMode>;
  latency: { fixedMs: number; jitterMs: number };
  /** Aborted on close: waits end, and the calls waiting get their connection dropped. */
  shutdown: AbortSignal;
  endpoints: ControlEndpoints;
}

/** Resolves once the caller goes away (null) or the simulator closes ('reset'): how long a hung call waits. */
function hangUntilGone(signal: AbortSignal | undefined, shutdown: AbortSignal): Promise<SimulatorReply> {
  const either = signal ? AbortSignal.any([signal, shutdown]) : shutdown;
  return new Promise((resolve) => {
    const end = () => resolve(shutdown.aborted ? 'reset' : null);
    if (either.aborted) end();
    else either.addEventListener('abort', end, { once: true });
  });
}

/** A call to one of the five hosts: logged, delayed by the latency, then faulted, refused or answered. */
async function handleCall(state: SimulatorState, request: SimulatorRequest): Promise<SimulatorReply> {
  const { world, log, faults, latency, shutdown } = state;
  const { method, rawPath, resolution, call, tooLarge, entry } = await receive(request, world.issuer, log);

  const waitMs = latency.fixedMs + (latency.jitterMs > 0 ? Math.random() * latency.jitterMs : 0);
  if (waitMs > 0 && !(await sleep(waitMs, true, { signal: shutdown }).catch(() => false))) return 'reset'; // closing
  // Nobody to answer once the caller went away; every connection is dropped once closing.
  const gone = (): SimulatorReply | undefined => (shutdown.aborted ? 'reset' : request.signal?.aborted ? null : undefined);
  const send = (sent: SimulatorResponse): SimulatorReply => {
    const away = gone();
    if (away !== undefined) return away;
    entry.status = sent.status;
    return sent;
  };
  const away = gone();
  if (away !== undefined) return away;

  const error: ErrorResponse = (status, code, message, headers = {}) =>
    jsonResponse(status, errorBody(status, code, message, resolution.hostPath), headers);
  const fault = call && faults.get(call.operation);
  if (fault) {
    const faulted = faultResponse(fault, error);
    if (faulted === 'hang') return hangUntilGone(request.signal, shutdown);
    return faulted === 'reset' ? faulted : send(faulted);
  }
  const refused = refusal(resolution, tooLarge, method, rawPath);
  if (refused) return send(error(...refused));
  // Every routed request has a call: refusal() answered all the others.
  const { status, body, headers } = await callReply(world, call!);
  return send(jsonResponse(status, body, headers));
}

/** The simulator's own endpoints that are on (stats; advance, when the demo's order moves). */
interface ControlEndpoints {
  log?: RequestLog;
  moves?: MoveSchedule;
}
type MoveSchedule = ReturnType<typeof scheduleMoves>;

/** What a request to one of the control endpoints gets: status, body and headers. */
function controlResponse({ log, moves }: ControlEndpoints, method: string, path: string): [number, unknown, Record<string, string>?] {
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

/**
 * The simulator's one request handler, whichever way the request came: a control endpoint
 * that is on (outside the host prefixes and the request log), else a call to one of the hosts.
 */
async function handleRequest(state: SimulatorState, request: SimulatorRequest): Promise<SimulatorReply> {
  const { endpoints } = state;
  const path = request.target.split('?')[0] ?? '/';
  if ((endpoints.log && path.startsWith(STATS_PATH)) || (endpoints.moves && path.startsWith(ADVANCE_PATH))) {
    return jsonResponse(...controlResponse(endpoints, request.method, path));
  }
  try {
    return await handleCall(state, request);
  } catch {
    return jsonResponse(500, errorBody(500, 'INTERNAL_SERVER_ERROR', 'Internal server error', request.target));
  }
}

/** Drops the connection, with a TCP reset where Node can send one. */
function resetConnection(req: IncomingMessage): void {
  const socket = req.socket as Socket & { resetAndDestroy?: () => Socket };
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

/** Writes a response on the HTTP connection: a whole body with its length, or a streamed one as its reader takes it. */
function writeResponse(res: ServerResponse, { status, headers, body }: SimulatorResponse): void {
  if (typeof body === 'string') {
    res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  const stop = new AbortController();
  res.on('close', () => stop.abort());
  res.writeHead(status, headers);
  // The reader going away ends the pipeline (and the body, by `stop`): nothing to report.
  pipeline(Readable.from(body(stop.signal)), res).catch(() => undefined);
}

/** The HTTP server: a thin adapter that reads each request whole and carries out what the handler replies. */
function createSimulatorServer(handle: (request: SimulatorRequest) => Promise<SimulatorReply>) {
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    req.on('error', () => {});
    const caller = new AbortController();
    res.on('close', () => caller.abort());
    const body = await readBody(req);
    if (body === null) return; // the client went away
    const reply = await handle({ method: req.method ?? 'GET', target: req.url ?? '/', headers: req.headers, body, signal: caller.signal });
    if (reply === null || res.destroyed) return;
    if (reply === 'reset') return resetConnection(req);
    writeResponse(res, reply);
  };
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    serve(req, res).catch(() => {
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

/** Where an in-process simulator's URLs point: a name that never resolves, so only its own `handle` reaches it. */
export const IN_PROCESS_ORIGIN = 'http://simulator.invalid';

/** The five hosts' URLs on one origin, each under its path prefix. */
const urlsAt = (origin: string) => Object.fromEntries(HOSTS.map((name) => [name, origin + UPSTREAM_PATH_PREFIXES[name]])) as UpstreamUrls;

/**
 * The simulator with no socket (its URLs are on IN_PROCESS_ORIGIN), with a fresh copy of the
 * seed data: each request is given to `handle`, as an in-process transport does and as
 * startSimulator's HTTP server does with every request it reads.
 */
export function createSimulator(options: Omit<SimulatorOptions, 'port' | 'host'> = {}): InProcessSimulator {
  const world: World = { data: createSeedData(), issuer: createTokenIssuer(options.jwtSecret) };
  const shutdown = new AbortController();
  const log = createRequestLog(Math.max(1, options.maxLogEntries ?? DEFAULT_MAX_LOG_ENTRIES));
  const endpoints: ControlEndpoints = { log: options.statsEndpoint ? log : undefined };
  const state: SimulatorState = {
    world,
    log,
    faults: new Map(),
    latency: { fixedMs: 0, jitterMs: 0 },
    shutdown: shutdown.signal,
    endpoints,
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
  // Last, once every option is checked: a simulator refused its options leaves no timer behind.
  if (everyMs > 0) endpoints.moves = scheduleMoves(mover, everyMs);

  return {
    urls: urlsAt(IN_PROCESS_ORIGIN),
    customers: world.data.users.map(({ username, password, description, user }) => ({ username, password, userId: user.id, description })),
    data: world.data,
    requestLog: log.entries,
    clearLog() {
      log.entries.length = 0;
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
    moving: endpoints.moves ? { username: MOVING_CUSTOMER, everyMs, advanceUrl: IN_PROCESS_ORIGIN + ADVANCE_PATH } : null,
    issueAccessToken(userId, tokenOptions = {}) {
      const email = world.data.users.find((account) => account.user.id === userId)?.user.email ?? null;
      return world.issuer.issueAccessToken(userId, email, tokenOptions.expiresInSeconds);
    },
    revokeAccessToken: (token) => world.issuer.revokeAccessToken(token),
    handle: (request) => handleRequest(state, request),
    close() {
      endpoints.moves?.stop();
      shutdown.abort();
      return Promise.resolve();
    },
  };
}

/**
 * Starts the simulator on its own port (0 by default) with a fresh copy of the seed data:
 * createSimulator behind an HTTP server, its URLs the server's (`handle` answers as it does).
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<InProcessSimulator> {
  const simulator = createSimulator(options);
  const server = createSimulatorServer(simulator.handle);
  let origin: string;
  try {
    origin = await listenOn(server, options.port ?? 0, options.host ?? '127.0.0.1');
  } catch (error) {
    await simulator.close();
    throw error;
  }
  let closing: Promise<void> | null = null;
  return {
    ...simulator,
    urls: urlsAt(origin),
    moving: simulator.moving && { ...simulator.moving, advanceUrl: origin + ADVANCE_PATH },
    close() {
      closing ??= new Promise<void>((resolve) => {
        void simulator.close();
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
