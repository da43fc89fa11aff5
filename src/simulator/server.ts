/**
 * The embedded upstream: a real HTTP server (node:http) implementing
 * `upstream/openapi.yaml` over seeded data, with JWT auth, stage rules, a request log
 * and per-operation fault injection. The five upstream hosts are five path prefixes of
 * one port, so a client's base-URL path joining is exercised for real.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OperationName, Order } from '../upstream/models.js';
import { createSeedData, type SeedData } from './data.js';
import { createTokenIssuer, type AccessTokenCheck, type TokenIssuer } from './tokens.js';

export type { SeedData, SeedUser } from './data.js';

export type FaultMode = '500' | 'hang' | 'reset' | 'malformed' | 'html' | '429' | 'empty' | 'oversized' | 'slowdrip';

/** Every fault mode, for tests that go through them all. */
export const FAULT_MODES: readonly FaultMode[] = ['500', 'hang', 'reset', 'malformed', 'html', '429', 'empty', 'oversized', 'slowdrip'];

/** Size of the 'oversized' fault's body: larger than any gateway should hold for one call. */
export const OVERSIZED_BODY_BYTES = 8 * 1024 * 1024;

export interface UpstreamUrls {
  AUTH_URL: string;
  APPOINTMENT_URL: string;
  ORDER_URL: string;
  PRICE_CALCULATOR_URL: string;
  TRADE_IN_URL: string;
}

type HostName = keyof UpstreamUrls;

/** The path prefix under which each upstream host is served (its URL's path). */
export const UPSTREAM_PATH_PREFIXES: Readonly<Record<HostName, string>> = {
  AUTH_URL: '/auth-service',
  APPOINTMENT_URL: '/appointment-service',
  ORDER_URL: '/order-service',
  PRICE_CALCULATOR_URL: '/price-calculator',
  TRADE_IN_URL: '/trade-in-service',
};

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
  /** An access token for a user id (any string); e.g. expiresInSeconds -60 for an expired one. */
  issueAccessToken(userId: string, options?: { expiresInSeconds?: number }): Promise<string>;
  /** Stops listening and ends every connection, hung requests included. */
  close(): Promise<void>;
}

/** The contract's operationIds, in contract order. */
export const OPERATION_NAMES: readonly OperationName[] = [
  'login',
  'refreshTokens',
  'customerDetails',
  'vehicleProductionDetails',
  'orderDetails',
  'nearestPickupCenter',
  'priceEstimate',
  'shippingAddresses',
  'orderPayments',
  'tradeInDetails',
];

/** The order stages, earliest first; CANCELLED (and any unknown status) is outside it. */
export const ORDER_STAGES = [
  'RESERVED',
  'ORDER_PENDING_PAYMENT',
  'ORDER_CONFIRMED',
  'BUILD_LOCKED',
  'IN_PRODUCTION',
  'IN_TRANSIT',
  'READY_FOR_PICKUP',
  'DELIVERED',
] as const;

type Stage = (typeof ORDER_STAGES)[number];

/** x-active-from of the contract, with what the 409 message calls the feature. */
const ACTIVE_FROM: Partial<Record<OperationName, { stage: Stage; feature: string }>> = {
  vehicleProductionDetails: { stage: 'IN_PRODUCTION', feature: 'Vehicle production details are' },
  nearestPickupCenter: { stage: 'IN_TRANSIT', feature: 'Pickup scheduling is' },
  priceEstimate: { stage: 'ORDER_CONFIRMED', feature: 'Price estimate is' },
};

/** Whether an operation with x-active-from is active for an order status. */
export function isOperationActive(operation: OperationName, status: string): boolean {
  const rule = ACTIVE_FROM[operation];
  if (!rule) return true;
  const at = (ORDER_STAGES as readonly string[]).indexOf(status);
  return at >= 0 && at >= ORDER_STAGES.indexOf(rule.stage);
}

const DEFAULT_MAX_LOG_ENTRIES = 10_000;
/** Where the opt-in stats endpoint lives: outside every host prefix. */
export const STATS_PATH = '/__simulator/stats';
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_PARAM_LENGTH = 128;

// ---------------------------------------------------------------------------------------
// Routing

type AuthKind = 'none' | 'refresh' | 'access';

interface Call {
  operation: OperationName;
  /** Path after the host prefix, for error bodies. */
  path: string;
  query: Record<string, string>;
  repeated: ReadonlySet<string>;
  pathParams: Record<string, string>;
  body: ParsedBody;
  bearer: string | null;
  check: AccessTokenCheck | null;
  /** Set for 'access' routes once the bearer is accepted. */
  userId: string;
}

type ParsedBody = { kind: 'none' } | { kind: 'invalid' } | { kind: 'json'; value: unknown };

interface Reply {
  status: number;
  body: unknown;
}

interface Route {
  operation: OperationName;
  host: HostName;
  method: 'GET' | 'POST';
  /** An exact path, or a pattern whose named groups are the path parameters. */
  path: string | RegExp;
  auth: AuthKind;
}

const ROUTES: readonly Route[] = [
  { operation: 'login', host: 'AUTH_URL', method: 'POST', path: '/auth/login', auth: 'none' },
  { operation: 'refreshTokens', host: 'AUTH_URL', method: 'POST', path: '/auth/refresh', auth: 'refresh' },
  { operation: 'customerDetails', host: 'AUTH_URL', method: 'GET', path: '/auth/me', auth: 'access' },
  {
    operation: 'vehicleProductionDetails',
    host: 'APPOINTMENT_URL',
    method: 'GET',
    path: '/vehicle/getDetails',
    auth: 'access',
  },
  { operation: 'orderDetails', host: 'ORDER_URL', method: 'GET', path: '/v2/order/user', auth: 'access' },
  {
    operation: 'nearestPickupCenter',
    host: 'PRICE_CALCULATOR_URL',
    method: 'GET',
    path: '/pickup-scheduler/get-pickup-nearest-center-plus',
    auth: 'access',
  },
  { operation: 'priceEstimate', host: 'ORDER_URL', method: 'GET', path: '/order/estimate', auth: 'access' },
  {
    operation: 'shippingAddresses',
    host: 'ORDER_URL',
    method: 'GET',
    path: /^\/order-address\/findAll\/(?<order_id>[^/]*)$/,
    auth: 'access',
  },
  { operation: 'orderPayments', host: 'ORDER_URL', method: 'GET', path: '/order-payments', auth: 'access' },
  {
    operation: 'tradeInDetails',
    host: 'TRADE_IN_URL',
    method: 'GET',
    path: '/partner-trade-in/trade-in-details',
    auth: 'access',
  },
];

type Resolution =
  | { kind: 'route'; route: Route; hostPath: string; pathParams: Record<string, string> }
  | { kind: 'not-found'; hostPath: string }
  | { kind: 'method-not-allowed'; hostPath: string; allow: string }
  | { kind: 'bad-path'; hostPath: string };

function resolveRoute(method: string, rawPath: string): Resolution {
  const host = (Object.keys(UPSTREAM_PATH_PREFIXES) as HostName[]).find((name) => {
    const prefix = UPSTREAM_PATH_PREFIXES[name];
    return rawPath === prefix || rawPath.startsWith(`${prefix}/`);
  });
  if (!host) return { kind: 'not-found', hostPath: rawPath };
  const hostPath = rawPath.slice(UPSTREAM_PATH_PREFIXES[host].length) || '/';
  const allowed: string[] = [];
  for (const route of ROUTES) {
    if (route.host !== host) continue;
    let pathParams: Record<string, string> = {};
    if (typeof route.path === 'string') {
      if (route.path !== hostPath) continue;
    } else {
      const match = route.path.exec(hostPath);
      if (!match) continue;
      try {
        pathParams = Object.fromEntries(
          Object.entries(match.groups ?? {}).map(([name, value]) => [name, decodeURIComponent(value ?? '')]),
        );
      } catch {
        return { kind: 'bad-path', hostPath };
      }
    }
    if (route.method !== method) {
      allowed.push(route.method);
      continue;
    }
    return { kind: 'route', route, hostPath, pathParams };
  }
  return allowed.length > 0
    ? { kind: 'method-not-allowed', hostPath, allow: allowed.join(', ') }
    : { kind: 'not-found', hostPath };
}

// ---------------------------------------------------------------------------------------
// Errors

class SimulatedError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

function errorBody(status: number, code: string, message: string, path: string) {
  return {
    statusCode: status,
    error: STATUS_CODES[status] ?? 'Error',
    code,
    message,
    path,
    timestamp: new Date().toISOString(),
  };
}

const unauthorized = (code: 'UNAUTHORIZED' | 'TOKEN_EXPIRED' | 'invalid_grant', message: string) =>
  new SimulatedError(401, code, message, {
    'www-authenticate': code === 'TOKEN_EXPIRED' ? 'Bearer error="invalid_token", error_description="expired"' : 'Bearer',
  });
const validationError = (message: string) => new SimulatedError(400, 'VALIDATION_ERROR', message);
const orderNotFound = (message: string) => new SimulatedError(404, 'ORDER_NOT_FOUND', message);

// ---------------------------------------------------------------------------------------
// Request helpers

function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

function parseQuery(search: string): { query: Record<string, string>; repeated: Set<string> } {
  const entries: Array<[string, string]> = [];
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const [key, value] of new URLSearchParams(search)) {
    if (seen.has(key)) {
      repeated.add(key);
      continue;
    }
    seen.add(key);
    entries.push([key, value]);
  }
  return { query: Object.fromEntries(entries), repeated };
}

/** The ids a call names, in the order given (for ownership tests on the log). */
function namedOrderIds(query: Record<string, string>, pathParams: Record<string, string>): string[] {
  const ids: string[] = [];
  for (const key of ['order_id', 'orderId', 'orderID', 'reservation_id', 'reservationId']) {
    const value = Object.hasOwn(query, key) ? query[key] : undefined;
    if (value) ids.push(value);
  }
  if (pathParams.order_id) ids.push(pathParams.order_id);
  return ids;
}

interface RawBody {
  text: string;
  tooLarge: boolean;
}

/** The whole body (up to the limit), or null when the client went away first. */
function readBody(req: IncomingMessage): Promise<RawBody | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else tooLarge = true;
    });
    req.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge }));
    req.on('error', () => resolve(null));
    req.on('close', () => resolve(null));
  });
}

function parseBody(req: IncomingMessage, raw: RawBody): ParsedBody {
  // Like a typical JSON API framework: a body without a JSON content type is not read.
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/.test(type)) return { kind: 'none' };
  if (raw.text.trim() === '') return { kind: 'none' };
  try {
    return { kind: 'json', value: JSON.parse(raw.text) as unknown };
  } catch {
    return { kind: 'invalid' };
  }
}

/** Required query (or path) parameters: present once, not blank, of a sane length. */
function requireParams(call: Call, names: string[], from: 'query' | 'path' = 'query'): string[] {
  const source = from === 'query' ? call.query : call.pathParams;
  const problems: string[] = [];
  const values: string[] = [];
  for (const name of names) {
    const value = Object.hasOwn(source, name) ? source[name] : undefined;
    if (value === undefined || value.trim() === '') problems.push(`${name} is required`);
    else if (from === 'query' && call.repeated.has(name)) problems.push(`${name} must be given once`);
    else if (value.length > MAX_PARAM_LENGTH || /[\u0000-\u001f\u007f]/.test(value)) {
      problems.push(`${name} is malformed`);
    }
    values.push(value ?? '');
  }
  if (problems.length > 0) throw validationError(problems.join('; '));
  return values;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Required non-empty string fields of a JSON object body. */
function requireBodyStrings(call: Call, names: string[]): string[] {
  if (call.body.kind === 'invalid') throw validationError('Request body is not valid JSON');
  const body = call.body.kind === 'json' && isRecord(call.body.value) ? call.body.value : {};
  const problems: string[] = [];
  const values: string[] = [];
  for (const name of names) {
    const value = body[name];
    if (typeof value !== 'string' || value === '') problems.push(`${name} must be a non-empty string`);
    values.push(typeof value === 'string' ? value : '');
  }
  if (problems.length > 0) throw validationError(problems.join('; '));
  return values;
}

// ---------------------------------------------------------------------------------------
// The simulator

/** Starts the simulator on its own port (0 by default) with a fresh copy of the seed data. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const data = createSeedData();
  const issuer = createTokenIssuer(options.jwtSecret);
  const requestLog: RequestLogEntry[] = [];
  const maxLogEntries = Math.max(1, options.maxLogEntries ?? DEFAULT_MAX_LOG_ENTRIES);
  const faults = new Map<OperationName, FaultMode>();
  const latency = { fixedMs: 0, jitterMs: 0 };
  const shutdown = new AbortController();
  const handlers = createHandlers(data, issuer);

  const setLatency = (fixedMs: number, jitterMs = 0) => {
    for (const [name, value] of [
      ['fixedMs', fixedMs],
      ['jitterMs', jitterMs],
    ] as const) {
      if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number >= 0`);
    }
    latency.fixedMs = fixedMs;
    latency.jitterMs = jitterMs;
  };
  setLatency(options.latencyMs ?? 0, options.jitterMs ?? 0);

  // Calls per operation for the stats endpoint: counters, so they cost nothing under load.
  let callCounts: Record<string, number> = {};
  let countingSince = new Date().toISOString();

  function appendToLog(entry: RequestLogEntry) {
    callCounts[entry.operation] = (callCounts[entry.operation] ?? 0) + 1;
    requestLog.push(entry);
    // Trim in batches so appending stays O(1) on average.
    if (requestLog.length > 2 * maxLogEntries) requestLog.splice(0, requestLog.length - maxLogEntries);
  }

  /** Who the bearer is, for the log and the handlers (the handlers decide what is accepted). */
  async function authenticate(kind: AuthKind | null, bearer: string | null) {
    if (kind === 'none' || bearer === null) return { check: null, userId: null };
    if (kind === 'refresh') {
      const owner = issuer.refreshTokenOwner(bearer);
      if (owner !== null) return { check: null, userId: owner };
      const check = await issuer.checkAccessToken(bearer);
      return { check, userId: check.kind === 'invalid' ? null : check.userId };
    }
    const check = await issuer.checkAccessToken(bearer);
    return { check, userId: check.kind === 'valid' ? check.userId : null };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    req.on('error', () => {});
    const method = (req.method ?? 'GET').toUpperCase();
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const rawPath = queryAt >= 0 ? rawUrl.slice(0, queryAt) : rawUrl;
    const { query, repeated } = parseQuery(queryAt >= 0 ? rawUrl.slice(queryAt + 1) : '');
    const resolution = resolveRoute(method, rawPath);
    const route = resolution.kind === 'route' ? resolution.route : null;
    const pathParams = resolution.kind === 'route' ? resolution.pathParams : {};
    const bearer = parseBearer(req.headers.authorization);

    const raw = await readBody(req);
    if (raw === null) return; // the client went away
    const body = parseBody(req, raw);
    const { check, userId } = await authenticate(route?.auth ?? null, bearer);

    const entry: RequestLogEntry = {
      operation: route?.operation ?? 'unknown',
      method,
      path: resolution.hostPath,
      query,
      pathParams,
      orderIds: namedOrderIds(query, pathParams),
      bearer,
      userId,
      status: 0,
      at,
    };
    appendToLog(entry);

    const waitMs = latency.fixedMs + (latency.jitterMs > 0 ? Math.random() * latency.jitterMs : 0);
    if (waitMs > 0) {
      try {
        await sleep(waitMs, undefined, { signal: shutdown.signal });
      } catch {
        return; // closing
      }
    }
    if (shutdown.signal.aborted || res.destroyed) return;

    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      const text = JSON.stringify(payload);
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        ...headers,
      });
      res.end(text);
    };
    const sendError = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
      send(status, errorBody(status, code, message, resolution.hostPath), headers);

    const fault = route ? faults.get(route.operation) : undefined;
    if (fault) {
      applyFault(fault, req, res, entry, sendError);
      return;
    }

    if (resolution.kind === 'not-found') {
      sendError(404, 'NOT_FOUND', `Cannot ${method} ${rawPath}`);
      return;
    }
    if (resolution.kind === 'method-not-allowed') {
      sendError(405, 'METHOD_NOT_ALLOWED', `Cannot ${method} ${rawPath}`, { allow: resolution.allow });
      return;
    }
    if (resolution.kind === 'bad-path' || !route) {
      sendError(400, 'VALIDATION_ERROR', 'Malformed path parameter');
      return;
    }
    if (raw.tooLarge) {
      sendError(413, 'PAYLOAD_TOO_LARGE', 'Request body too large');
      return;
    }

    try {
      if (route.auth === 'access') {
        if (bearer === null) throw unauthorized('UNAUTHORIZED', 'Missing bearer token');
        if (check?.kind === 'expired') throw unauthorized('TOKEN_EXPIRED', 'Access token has expired');
        if (check?.kind !== 'valid') throw unauthorized('UNAUTHORIZED', 'Invalid access token');
      }
      const call: Call = {
        operation: route.operation,
        path: resolution.hostPath,
        query,
        repeated,
        pathParams,
        body,
        bearer,
        check,
        userId: userId ?? '',
      };
      const reply = await handlers[route.operation](call);
      if (shutdown.signal.aborted || res.destroyed) return;
      send(reply.status, reply.body);
    } catch (error) {
      if (shutdown.signal.aborted || res.destroyed) return;
      if (error instanceof SimulatedError) sendError(error.status, error.code, error.message, error.headers);
      else sendError(500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
    }
  }

  /** The stats endpoint; true when it answered the request. */
  function serveStats(req: IncomingMessage, res: ServerResponse): boolean {
    const path = (req.url ?? '/').split('?')[0];
    if (!path?.startsWith(STATS_PATH)) return false;
    let status = 200;
    let payload: unknown;
    if (path === STATS_PATH && req.method === 'GET') {
      const total = Object.values(callCounts).reduce((sum, count) => sum + count, 0);
      payload = { since: countingSince, total, operations: callCounts };
    } else if (path === `${STATS_PATH}/reset` && req.method === 'POST') {
      callCounts = {};
      countingSince = new Date().toISOString();
      payload = { since: countingSince, total: 0, operations: callCounts };
    } else {
      status = 404;
      payload = { statusCode: 404, error: 'Not Found', message: `Cannot ${req.method} ${path}` };
    }
    const text = JSON.stringify(payload);
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return true;
  }

  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    if (options.statsEndpoint && serveStats(req, res)) return;
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(errorBody(500, 'INTERNAL_SERVER_ERROR', 'Internal server error', req.url ?? '/')));
      }
    });
  });
  // Longer than any client's idle keep-alive, so a reused socket is never closed under it.
  server.headersTimeout = 66_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', () => {});

  const { port } = server.address() as AddressInfo;
  const origin = `http://${hostForUrl(host)}:${port}`;
  const urls = Object.fromEntries(
    (Object.keys(UPSTREAM_PATH_PREFIXES) as HostName[]).map((name) => [name, origin + UPSTREAM_PATH_PREFIXES[name]]),
  ) as unknown as UpstreamUrls;

  let closing: Promise<void> | null = null;

  return {
    urls,
    customers: data.users.map(({ username, password, description, user }) => ({
      username,
      password,
      userId: user.id,
      description,
    })),
    data,
    requestLog,
    clearLog() {
      requestLog.length = 0;
    },
    setFault(operation, mode) {
      if (!OPERATION_NAMES.includes(operation)) throw new TypeError(`Unknown operation: ${String(operation)}`);
      if (mode === null) faults.delete(operation);
      else if (FAULT_MODES.includes(mode)) faults.set(operation, mode);
      else throw new TypeError(`Unknown fault mode: ${String(mode)}`);
    },
    clearFaults() {
      faults.clear();
    },
    setLatency,
    issueAccessToken(userId, tokenOptions = {}) {
      const email = data.users.find((account) => account.user.id === userId)?.user.email ?? null;
      return issuer.issueAccessToken(userId, email, tokenOptions.expiresInSeconds);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        shutdown.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function applyFault(
  mode: FaultMode,
  req: IncomingMessage,
  res: ServerResponse,
  entry: RequestLogEntry,
  sendError: (status: number, code: string, message: string, headers?: Record<string, string>) => void,
): void {
  switch (mode) {
    case '500':
      sendError(500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
      return;
    case '429':
      sendError(429, 'RATE_LIMITED', 'Too many requests, retry later', { 'retry-after': '7' });
      return;
    case 'hang':
      // Never answered: close() ends the connection.
      return;
    case 'reset': {
      const socket = req.socket as Socket & { resetAndDestroy?: () => Socket };
      if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else socket.destroy();
      return;
    }
    case 'malformed': {
      const text = '{"id": "x", ';
      entry.status = 200;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    case 'empty':
      entry.status = 200;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': 0 });
      res.end();
      return;
    case 'oversized': {
      // Valid JSON, just far too much of it: a string field padded to OVERSIZED_BODY_BYTES.
      entry.status = 200;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      const chunk = 'x'.repeat(64 * 1024);
      res.write('{"id":"big","padding":"');
      let sent = 0;
      const pump = () => {
        while (sent < OVERSIZED_BODY_BYTES) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('"}');
      };
      res.on('error', () => undefined);
      pump();
      return;
    }
    case 'slowdrip': {
      // Headers at once, then a byte every 200 ms: a body that never finishes in time.
      entry.status = 200;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.write('{');
      const drip = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(drip));
      return;
    }
    case 'html': {
      const text =
        '<!DOCTYPE html>\n<html><head><title>Service temporarily unavailable</title></head>' +
        '<body><h1>Service temporarily unavailable</h1><p>Please try again in a few minutes.</p></body></html>\n';
      entry.status = 200;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------
// The ten operations

type Handler = (call: Call) => Promise<Reply> | Reply;

function createHandlers(data: SeedData, issuer: TokenIssuer): Record<OperationName, Handler> {
  const ok = (body: unknown): Reply => ({ status: 200, body });

  const findOrder = (orderId: string): Order => {
    const order = data.orders.find((candidate) => candidate.id === orderId);
    if (!order) throw orderNotFound(`Order ${orderId} not found`);
    return order;
  };
  const assertOwner = (call: Call, order: Order) => {
    if (order.userId !== call.userId) {
      throw new SimulatedError(403, 'FORBIDDEN', `Order ${order.id} does not belong to the authenticated user`);
    }
  };
  const assertActive = (call: Call, order: Order) => {
    const rule = ACTIVE_FROM[call.operation];
    if (rule && !isOperationActive(call.operation, order.status)) {
      throw new SimulatedError(
        409,
        'ORDER_STAGE_NOT_ELIGIBLE',
        `${rule.feature} not available for order status ${order.status}`,
      );
    }
  };

  return {
    async login(call) {
      const [username, password] = requireBodyStrings(call, ['username', 'password']) as [string, string];
      const account = data.users.find(
        (candidate) => candidate.username.toLowerCase() === username.trim().toLowerCase(),
      );
      if (!account || account.password !== password) {
        throw new SimulatedError(401, 'INVALID_CREDENTIALS', 'Incorrect username or password');
      }
      return ok(await issuer.issueTokenSet(account.user));
    },

    async refreshTokens(call) {
      if (call.bearer === null) throw unauthorized('UNAUTHORIZED', 'Missing bearer token');
      const [refreshToken] = requireBodyStrings(call, ['refresh_token']) as [string];
      let bearerUser: string | null;
      if (call.bearer === refreshToken) {
        bearerUser = issuer.refreshTokenOwner(refreshToken);
        if (bearerUser === null) throw unauthorized('invalid_grant', 'Refresh token is invalid or has already been used');
      } else {
        bearerUser = issuer.refreshTokenOwner(call.bearer);
        if (bearerUser === null) {
          if (call.check === null || call.check.kind === 'invalid') {
            throw unauthorized('UNAUTHORIZED', 'Invalid bearer token');
          }
          bearerUser = call.check.userId;
        }
      }
      const owner = issuer.refreshTokenOwner(refreshToken);
      if (owner === null) throw unauthorized('invalid_grant', 'Refresh token is invalid or has already been used');
      if (owner !== bearerUser) throw unauthorized('invalid_grant', 'Refresh token was not issued to this user');
      const account = data.users.find((candidate) => candidate.user.id === owner);
      if (!account) throw unauthorized('invalid_grant', 'The user of this refresh token no longer exists');
      issuer.consumeRefreshToken(refreshToken);
      return ok(await issuer.issueTokenSet(account.user));
    },

    customerDetails(call) {
      const account = data.users.find((candidate) => candidate.user.id === call.userId);
      if (!account) throw unauthorized('UNAUTHORIZED', 'The user of this token no longer exists');
      return ok(account.user);
    },

    orderDetails(call) {
      return ok(data.orders.filter((order) => order.userId === call.userId));
    },

    vehicleProductionDetails(call) {
      const [orderId, reservationId] = requireParams(call, ['order_id', 'reservation_id']) as [string, string];
      const order = data.orders.find((candidate) => candidate.id === orderId);
      if (!order || order.reservationId !== reservationId) {
        throw orderNotFound(`Order ${orderId} with reservation ${reservationId} not found`);
      }
      assertOwner(call, order);
      assertActive(call, order);
      const vehicle = data.vehicleDetails.find((candidate) => candidate.orderId === order.id);
      if (!vehicle) {
        throw new SimulatedError(404, 'VEHICLE_NOT_FOUND', `No vehicle has been assigned to order ${order.id} yet`);
      }
      return ok(vehicle);
    },

    nearestPickupCenter(call) {
      const [orderId] = requireParams(call, ['orderId']) as [string];
      const order = findOrder(orderId);
      assertActive(call, order);
      const center = data.pickupCenters.find((candidate) => candidate.orderId === order.id);
      if (!center) {
        throw new SimulatedError(404, 'PICKUP_CENTER_NOT_FOUND', `No pickup centre assigned to order ${order.id}`);
      }
      return ok(center);
    },

    priceEstimate(call) {
      const [orderId] = requireParams(call, ['orderID']) as [string];
      const order = findOrder(orderId);
      assertOwner(call, order);
      assertActive(call, order);
      const estimate = data.estimates.find((candidate) => candidate.orderId === order.id);
      if (!estimate) throw new SimulatedError(404, 'ESTIMATE_NOT_FOUND', `No estimate for order ${order.id}`);
      return ok(estimate);
    },

    shippingAddresses(call) {
      const [orderId] = requireParams(call, ['order_id'], 'path') as [string];
      const order = findOrder(orderId);
      return ok(data.addresses.filter((address) => address.orderId === order.id));
    },

    orderPayments(call) {
      const [orderId, feeType] = requireParams(call, ['order_id', 'fee_type']) as [string, string];
      if (feeType !== 'ORDER_FEE') throw validationError('fee_type must be one of: ORDER_FEE');
      const order = findOrder(orderId);
      return ok(data.payments.filter((payment) => payment.orderId === order.id && payment.feeType === feeType));
    },

    tradeInDetails(call) {
      const [reservationId] = requireParams(call, ['reservationId']) as [string];
      const order = data.orders.find((candidate) => candidate.reservationId === reservationId);
      if (!order) throw orderNotFound(`Reservation ${reservationId} not found`);
      assertOwner(call, order);
      const tradeIn = data.tradeIns.find((candidate) => candidate.reservationId === reservationId);
      if (!tradeIn) {
        throw new SimulatedError(404, 'TRADE_IN_NOT_FOUND', `No trade-in for reservation ${reservationId}`);
      }
      return ok(tradeIn);
    },
  };
}
