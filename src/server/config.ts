// The gateway's settings: the environment validated at once into the Config the server is given.
//
// One source per setting. Each concern's schema (config/*.ts: connections, callers, bytes, live,
// history, labels, redis, notifications, observability, pages, upstream) states its environment variables once: name,
// bounds, message, default and what each does; envSchema here joins them, and
// docs/configuration.md is written from it (npm run docs:config; test/unit/config-doc.test.ts
// fails when the page is behind). This file alone reads the environment (loadConfig), and it
// alone is imported by the rest of the server. The functions after loadConfig say where each
// value goes, grouped by who reads it, and Config is inferred from them: no interface restates
// it, and gateway.ts and http-server.ts take their part by name (GatewaySettings,
// HttpServerSettings) instead of listing settings again. The layers below the server may not
// import these files, so where one needs a shape (the upstream's BudgetLimits, the live hub's
// LiveLimits) that layer states it, with what each limit means to it, and the concern's file
// maps its values to that shape: the compiler checks the mapping against it, and
// Config['live'] is LiveLimits, not a copy. Zod schemas down there instead would restate those
// shapes in another form, while the bounds and messages name environment variables, which only
// the server knows.
import { z } from 'zod';
import type { CodeLabels } from '../graph/code-labels.js';
import { HOSTS } from '../upstream/contract.js';
import { heldBytes, bytesVariables } from './config/bytes.js';
import { callerLimits, callerVariables, throttles } from './config/callers.js';
import { clientTimeoutProblems, connectionVariables } from './config/connections.js';
import { history, historyVariables } from './config/history.js';
import { codeLabels, labelVariables } from './config/labels.js';
import { liveLimits, liveVariables } from './config/live.js';
import { notifyProblems, notifySettings, notifyVariables } from './config/notifications.js';
import { metricsPathProblems, observabilityVariables, tracingSettings } from './config/observability.js';
import { allowedHostsProblems, pageVariables } from './config/pages.js';
import { redisVariables, responseCacheBytes } from './config/redis.js';
import { upstreamBudget, upstreamProblems, upstreamUrls, upstreamVariables } from './config/upstream.js';

export { DEFAULT_REQUEST_BYTES, IN_FLIGHT_SHARE_OF_HEAP, WHOLE_PAGE_BYTES } from './config/bytes.js';
export { DEMO_LIVE_POLL_INTERVAL_MS, LIVE_POLL_INTERVAL_MS } from './config/live.js';
export { DEMO_NOTIFY_POLL_INTERVAL_MS, NOTIFY_POLL_INTERVAL_MS } from './config/notifications.js';
export { PRODUCTION_SAMPLE_RATIO } from './config/observability.js';
export { DEFAULT_UPSTREAM_CALLS } from './config/upstream.js';

/** Thrown by loadConfig with every problem found, one line each. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Every environment variable the gateway reads, validated and defaulted. Each says what it
 * does (`describe`, or `meta` with `unset` for what an unset variable without a default
 * means): docs/configuration.md is generated from them (npm run docs:config). The problems are
 * reported in this order; the upstream's last, beside loadConfig's about the upstream as a whole.
 */
export const envSchema = z.object({
  ...connectionVariables.shape,
  ...callerVariables.shape,
  ...bytesVariables.shape,
  ...liveVariables.shape,
  ...historyVariables.shape,
  ...labelVariables.shape,
  ...redisVariables.shape,
  ...notifyVariables.shape,
  // The run's kind: several concerns read it.
  NODE_ENV: z
    .string()
    .trim()
    .default('development')
    .describe(
      '`production` turns GraphiQL, introspection, the tracker page and cross-origin access off unless they are set, records one new trace in ten, logs JSON on a terminal too, and refuses to start without the upstream (unless `SIMULATOR=on`) or without `ALLOWED_HOSTS`.',
    ),
  ...observabilityVariables.shape,
  ...pageVariables.shape,
  ...upstreamVariables.shape,
});

/** The environment's values, each validated (and defaulted) by the schema. */
type EnvValues = z.infer<typeof envSchema>;

/** Every environment variable the gateway reads: anything else in its environment is not a setting. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/**
 * Reads and validates the environment (the only place that does). Empty variables count
 * as unset. Throws a ConfigError listing every problem at once.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const parsed = envSchema.safeParse(present);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);

  const setUrls = HOSTS.filter((name) => name in present);
  const production = present.NODE_ENV?.trim() === 'production';
  problems.push(...upstreamProblems(setUrls, parsed.success ? parsed.data.SIMULATOR : undefined, production));
  let labels: CodeLabels | undefined;
  if (parsed.success) {
    const read = codeLabels(parsed.data.CODE_LABELS_FILE, upstreamUrls(parsed.data) === null);
    if ('problem' in read) problems.push(read.problem);
    else labels = read.labels;
    problems.push(
      ...allowedHostsProblems(parsed.data, production),
      ...metricsPathProblems(parsed.data),
      ...clientTimeoutProblems(parsed.data),
      ...notifyProblems(parsed.data),
    );
  }
  if (!parsed.success || !labels || problems.length > 0) throw new ConfigError(problems);
  return toConfig(parsed.data, labels);
}

/** Every setting, in one object: serve.ts reads it and hands each part to its reader. */
export type Config = ReturnType<typeof toConfig>;
/** What the HTTP server reads (http-server.ts). */
export type HttpServerSettings = ReturnType<typeof httpServerSettings>;
/** What createGateway reads (gateway.ts), besides `trustedProxies`, which the HTTP server reads too. */
export type GatewaySettings = ReturnType<typeof gatewaySettings>;

function toConfig(values: EnvValues, labels: CodeLabels) {
  return { ...processSettings(values), ...httpServerSettings(values), ...gatewaySettings(values, labels) };
}

/** What serve.ts itself reads: where to listen, the upstream or the simulator, how a stop goes, logs and traces. */
function processSettings(values: EnvValues) {
  const production = values.NODE_ENV === 'production';
  return {
    port: values.PORT,
    host: values.HOST,
    /** null: the embedded simulator serves the upstream (never unless asked for in production). */
    upstreamUrls: upstreamUrls(values),
    /** How long a stop waits for in-flight requests. */
    shutdownGraceMs: values.SHUTDOWN_GRACE_MS,
    logLevel: values.LOG_LEVEL,
    /** NODE_ENV=production: the logs are JSON on a terminal too (readable lines there otherwise). */
    production,
    /** OpenTelemetry tracing from the standard OTEL_* variables; null when off (nothing configured). */
    tracing: tracingSettings(values, production),
  };
}

function httpServerSettings(values: EnvValues) {
  return {
    /** A client must have sent its request headers within this, from connecting. */
    headersTimeoutMs: values.HEADERS_TIMEOUT_MS,
    /** A client must have sent its whole request (headers and body) within this. */
    requestTimeoutMs: values.REQUEST_TIMEOUT_MS,
    /** An idle keep-alive connection is closed after this. */
    keepAliveTimeoutMs: values.KEEP_ALIVE_TIMEOUT_MS,
    /** Open client connections at most; more are closed on arrival. */
    maxConnections: values.MAX_CONNECTIONS,
    /** Open connections (requests, behind a trusted proxy) from one client address at most. */
    maxConnectionsPerAddress: values.MAX_CONNECTIONS_PER_ADDRESS,
    /**
     * A connection whose unsent answer stays above `maxUnsentBytes` for `timeoutMs` is closed: a
     * reader that stopped reading. One client address's connections together hold at most
     * `maxUnsentBytesPerAddress`: past it, the ones holding the most are closed.
     */
    slowReader: {
      maxUnsentBytes: values.SLOW_READER_BYTES,
      timeoutMs: values.SLOW_READER_TIMEOUT_MS,
      maxUnsentBytesPerAddress: values.SLOW_READER_BYTES_PER_ADDRESS,
    },
    /**
     * The proxies in front of the gateway, by address (IPs, CIDR ranges, or proxy-addr's names
     * `loopback`, `linklocal`, `uniquelocal`): only a connection from one of them has its
     * X-Forwarded-For believed. Empty: the socket's address is the client's.
     */
    trustedProxies: values.TRUSTED_PROXIES,
  };
}

/** Where npm start's demo serves the tracker page, for the links in its messages (a path alone when the port is picked at start). */
function demoTrackerUrl({ HOST, PORT }: EnvValues): string {
  if (PORT === 0) return '/tracker/';
  const host = HOST === '0.0.0.0' || HOST === '::' ? 'localhost' : HOST.includes(':') ? `[${HOST}]` : HOST;
  return `http://${host}:${PORT}/tracker/`;
}

function gatewaySettings(values: EnvValues, labels: CodeLabels) {
  const production = values.NODE_ENV === 'production';
  return {
    upstreamTimeoutMs: values.UPSTREAM_TIMEOUT_MS,
    upstreamRetries: values.UPSTREAM_RETRIES,
    /** The upstream client's transport: undici (the default, the cheaper per call) or got. */
    upstreamClient: values.UPSTREAM_CLIENT,
    /** The whole request's budget: no upstream call outlives it, retries included. */
    requestDeadlineMs: values.REQUEST_DEADLINE_MS,
    /** What one request may make the upstream do (calls include retries). */
    upstreamBudget: upstreamBudget(values),
    /**
     * The bytes one request may hold (its upstream answers and its answer), all requests in
     * flight together, and how long new work is refused once no room can be made for them.
     */
    bytes: heldBytes(values),
    /** What one caller (a verified customer, else an address) may have in flight at once, on every transport together. */
    callerLimits: callerLimits(values),
    /** A WebSocket running no operation is closed after this (pings do not count). */
    webSocketIdleTimeoutMs: values.WEBSOCKET_IDLE_TIMEOUT_MS,
    ...throttles(values),
    /** Origins allowed cross-origin access: exact origins, `*` for any, or 'local' (localhost, any port). */
    corsOrigins: values.CORS_ORIGINS ?? (production ? [] : ('local' as const)),
    /** The Host names requests and WebSocket upgrades may carry (an IP address always may), or any. */
    allowedHosts: !values.ALLOWED_HOSTS || values.ALLOWED_HOSTS.includes('*') ? ('any' as const) : values.ALLOWED_HOSTS,
    graphiql: values.GRAPHIQL ?? !production,
    introspection: values.INTROSPECTION ?? !production,
    /** The order-tracker page at /tracker/ (examples/order-tracker/). */
    tracker: values.TRACKER ?? !production,
    /** off: any document; allow: registered hashes and full documents; only: registered hashes alone. */
    trustedDocuments: values.TRUSTED_DOCUMENTS,
    /** Heap the parsed, validated and compiled documents may take, estimated in bytes. */
    documentCacheBytes: values.DOCUMENT_CACHE_BYTES,
    /** Where Prometheus metrics are served (`GET`); null when off. */
    metricsPath: values.METRICS_PATH === 'off' ? null : values.METRICS_PATH,
    /** Live order updates: how often a watched customer is polled, how many streams are allowed, the bytes its last poll may take. */
    live: liveLimits(values, upstreamUrls(values) === null),
    /** Shared state across replicas (live polls, login counters, the response cache); null: each process alone. */
    redisUrl: values.REDIS_URL ?? null,
    /** How long any Redis command may take; past it the gateway acts as with Redis away. */
    redisCommandTimeoutMs: values.REDIS_COMMAND_TIMEOUT_MS,
    /** The words for the vehicle's codes (CODE_LABELS_FILE, or the embedded simulator's), read and checked at start. */
    codeLabels: labels,
    /** How long a caller's query answers are kept for that caller; 0: no response cache. */
    responseCacheTtlMs: values.RESPONSE_CACHE_TTL_MS,
    /** The response cache's bytes: one answer at most, and all answers together (in this process, or in Redis for all replicas). */
    responseCacheBytes: responseCacheBytes(values),
    /**
     * Order history: null when off (nothing is kept); else its bounds, and the bytes the
     * histories may take in all: in this process, or in Redis for all replicas.
     */
    history: history(values),
    /** Notifications: null when off (no NOTIFY_TOKEN_KEYS, and not the embedded simulator's demo): nothing of them is loaded. */
    notify: notifySettings(values, upstreamUrls(values) === null, demoTrackerUrl(values), production),
    /** Serve as an Apollo Federation v2 subgraph (`_service`, `_entities`). */
    subgraph: values.SUBGRAPH,
  };
}
