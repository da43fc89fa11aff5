// The gateway's settings: the environment validated at once into the Config the server is given.
//
// One source per setting. The schema (envSchema) states each environment variable once: its
// name, bounds, message and default; the README's tables are checked against it
// (test/unit/config-readme.test.ts). The functions after loadConfig say where each value goes,
// grouped by who reads it, and Config is inferred from them: no interface restates it, and
// gateway.ts and http-server.ts take their part by name (GatewaySettings, HttpServerSettings)
// instead of listing settings again. The layers below the server may not import this file, so
// where one needs a shape (the upstream's BudgetLimits, the live hub's LiveLimits) that layer
// states it, with what each limit means to it, and the part is typed as that shape here: the
// compiler checks the mapping against it, and Config['live'] is LiveLimits, not a copy. Zod
// schemas down there instead would restate those shapes in another form, while the bounds and
// messages name environment variables, which only this file knows.
import { isIP } from 'node:net';
import { z } from 'zod';
import type { LiveLimits } from '../live/orders-hub.js';
import { SAMPLERS, type TracingSettings } from '../observability/settings.js';
import type { BudgetLimits } from '../upstream/budget.js';
import { HOSTS, type HostName, type UpstreamUrls } from '../upstream/contract.js';
import type { ResponseCacheBytes } from '../redis/response-cache.js';
import type { HistoryBounds } from '../graph/history-story.js';
import { wholeOrderCalls } from '../graph/order-fields.js';
import { defaultOrdersPage } from '../graph/sdl.js';
import type { CallerLimits } from './callers.js';

/** Thrown by loadConfig with every problem found, one line each. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const integer = (name: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `${name} must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`));

const flag = (name: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ['on', 'off', 'true', 'false', '1', '0'].includes(v), `${name} must be on or off`)
    .transform((v) => v === 'on' || v === 'true' || v === '1');

const httpUrl = (name: string) =>
  z
    .string()
    .trim()
    .refine((v) => {
      if (!URL.canParse(v)) return false;
      const url = new URL(v);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash;
    }, `${name} must be an http(s) URL without query or fragment, e.g. http://orders.internal:8080/api`);

const MIB = 1024 * 1024;

/**
 * Trusted proxies: comma-separated IPs, CIDR ranges and proxy-addr's names. A bare hop count
 * (the old form) is refused: it trusts whatever a client puts first in X-Forwarded-For.
 */
const trustedProxies = z
  .string()
  .transform((value): readonly string[] =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  )
  .refine(
    (list) => !list.some((entry) => /^\d+$/.test(entry)),
    "TRUSTED_PROXIES takes the proxies' addresses, not a hop count: e.g. 10.0.0.0/8 or loopback",
  )
  .refine(
    (list) => list.every((entry) => /^\d+$/.test(entry) || PROXY_NAMES.includes(entry) || isAddressRange(entry)),
    "TRUSTED_PROXIES must list the proxies' addresses: IPs or CIDR ranges (10.0.0.0/8, 127.0.0.1), or loopback, linklocal, uniquelocal",
  );

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isAddressRange(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  if (rest.length > 0 || !address) return false;
  const version = isIP(address);
  if (version === 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}

/** An origin (`https://app.example.com`, `http://localhost:5173`) or `*`; never `null`. */
const origins = z
  .string()
  .transform((value): readonly string[] =>
    value
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
  )
  .refine(
    (list) => list.every((origin) => origin === '*' || (URL.canParse(origin) && new URL(origin).origin === origin)),
    'CORS_ORIGINS must be a comma-separated list of origins such as https://app.example.com (scheme, host and port only), or *',
  );

/** Host names (`api.example.com`), comma-separated, or `*` for any. */
const hostNames = z
  .string()
  .transform((value): readonly string[] =>
    value
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  )
  .refine(
    (list) =>
      list.length > 0 &&
      list.every((name) => name === '*' || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(name)),
    'ALLOWED_HOSTS must be a comma-separated list of host names such as api.example.com (no scheme, no port), or *',
  );

/**
 * The upstream calls a request may make by default: a whole order of the default page, rounded
 * up to the next ten so that a retry or two fit. It follows the operations: a per-order call
 * added to the table raises it.
 */
export const DEFAULT_UPSTREAM_CALLS = Math.ceil(wholeOrderCalls(defaultOrdersPage()) / 10) * 10;

/** Every environment variable the gateway reads, validated and defaulted (the README's tables are checked against it). */
export const envSchema = z.object({
  PORT: integer('PORT', 0, 65535).default(4000),
  HOST: z.string().trim().min(1, 'HOST must not be empty').default('127.0.0.1'),
  UPSTREAM_TIMEOUT_MS: integer('UPSTREAM_TIMEOUT_MS', 1, 600_000).default(5000),
  UPSTREAM_RETRIES: integer('UPSTREAM_RETRIES', 0, 5).default(1),
  UPSTREAM_CLIENT: z.enum(['undici', 'got'], { error: 'UPSTREAM_CLIENT must be undici or got' }).default('undici'),
  REQUEST_DEADLINE_MS: integer('REQUEST_DEADLINE_MS', 1, 600_000).default(10_000),
  UPSTREAM_CALLS_PER_REQUEST: integer('UPSTREAM_CALLS_PER_REQUEST', 1, 10_000).default(DEFAULT_UPSTREAM_CALLS),
  UPSTREAM_CONCURRENCY_PER_REQUEST: integer('UPSTREAM_CONCURRENCY_PER_REQUEST', 1, 256).default(16),
  UPSTREAM_RETRIES_PER_REQUEST: integer('UPSTREAM_RETRIES_PER_REQUEST', 0, 1000).default(4),
  // Sized for a browser tab or two: a page's queries at once, each at its full concurrency.
  CALLER_OPERATIONS_IN_FLIGHT: integer('CALLER_OPERATIONS_IN_FLIGHT', 1, 100_000).default(32),
  CALLER_UPSTREAM_CALLS_IN_FLIGHT: integer('CALLER_UPSTREAM_CALLS_IN_FLIGHT', 1, 100_000).default(64),
  LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: integer('LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS', 1, 1000).default(5),
  LOGIN_FAILURE_DELAY_S: integer('LOGIN_FAILURE_DELAY_S', 1, 86_400).default(30),
  // From all addresses: a ceiling only a distributed attack reaches (it was 5, which let anyone lock anyone out).
  LOGIN_FAILURES_PER_USERNAME: integer('LOGIN_FAILURES_PER_USERNAME', 1, 100_000).default(100),
  LOGIN_FAILURES_PER_ADDRESS: integer('LOGIN_FAILURES_PER_ADDRESS', 1, 100_000).default(20),
  LOGIN_FAILURE_WINDOW_S: integer('LOGIN_FAILURE_WINDOW_S', 1, 86_400).default(900),
  REFRESH_FAILURES_PER_ADDRESS: integer('REFRESH_FAILURES_PER_ADDRESS', 1, 100_000).default(20),
  REFRESH_FAILURES_PER_TOKEN: integer('REFRESH_FAILURES_PER_TOKEN', 1, 1000).default(5),
  REFRESH_FAILURE_WINDOW_S: integer('REFRESH_FAILURE_WINDOW_S', 1, 86_400).default(900),
  LIVE_POLL_INTERVAL_MS: integer('LIVE_POLL_INTERVAL_MS', 100, 3_600_000).default(30_000),
  LIVE_STREAMS_PER_CUSTOMER: integer('LIVE_STREAMS_PER_CUSTOMER', 1, 10_000).default(50),
  LIVE_STREAMS_PER_ADDRESS: integer('LIVE_STREAMS_PER_ADDRESS', 1, 100_000).default(200),
  REDIS_URL: z
    .string()
    .trim()
    .refine(
      (v) => URL.canParse(v) && ['redis:', 'rediss:'].includes(new URL(v).protocol),
      'REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://redis:6379',
    )
    .optional(),
  REDIS_COMMAND_TIMEOUT_MS: integer('REDIS_COMMAND_TIMEOUT_MS', 10, 60_000).default(500),
  RESPONSE_CACHE_TTL_MS: integer('RESPONSE_CACHE_TTL_MS', 0, 60_000).default(0),
  RESPONSE_CACHE_ENTRY_BYTES: integer('RESPONSE_CACHE_ENTRY_BYTES', 1_000, 100 * MIB).default(MIB),
  RESPONSE_CACHE_BYTES: integer('RESPONSE_CACHE_BYTES', 10_000, 4096 * MIB).default(32 * MIB),
  DOCUMENT_CACHE_BYTES: integer('DOCUMENT_CACHE_BYTES', 1_000_000, 4096 * MIB).default(32 * MIB),
  LIVE_SNAPSHOT_BYTES: integer('LIVE_SNAPSHOT_BYTES', 100_000, 4096 * MIB).default(32 * MIB),
  HISTORY: flag('HISTORY').default(true),
  HISTORY_EVENTS_PER_ORDER: integer('HISTORY_EVENTS_PER_ORDER', 1, 10_000).default(100),
  HISTORY_MAX_AGE_DAYS: integer('HISTORY_MAX_AGE_DAYS', 1, 3650).default(400),
  HISTORY_CUSTOMER_BYTES: integer('HISTORY_CUSTOMER_BYTES', 10_000, 64 * MIB).default(256 * 1024),
  HISTORY_BYTES: integer('HISTORY_BYTES', 100_000, 4096 * MIB).default(32 * MIB),
  SUBGRAPH: flag('SUBGRAPH').default(false),
  TRUSTED_PROXIES: trustedProxies.default([]),
  SHUTDOWN_GRACE_MS: integer('SHUTDOWN_GRACE_MS', 0, 600_000).default(10_000),
  HEADERS_TIMEOUT_MS: integer('HEADERS_TIMEOUT_MS', 1000, 600_000).default(10_000),
  REQUEST_TIMEOUT_MS: integer('REQUEST_TIMEOUT_MS', 1000, 600_000).default(30_000),
  KEEP_ALIVE_TIMEOUT_MS: integer('KEEP_ALIVE_TIMEOUT_MS', 1000, 600_000).default(5000),
  MAX_CONNECTIONS: integer('MAX_CONNECTIONS', 1, 1_000_000).default(4096),
  MAX_CONNECTIONS_PER_ADDRESS: integer('MAX_CONNECTIONS_PER_ADDRESS', 1, 1_000_000).default(256),
  SLOW_READER_BYTES: integer('SLOW_READER_BYTES', 1_000, 1024 * MIB).default(MIB),
  SLOW_READER_TIMEOUT_MS: integer('SLOW_READER_TIMEOUT_MS', 1000, 3_600_000).default(10_000),
  SLOW_READER_BYTES_PER_ADDRESS: integer('SLOW_READER_BYTES_PER_ADDRESS', 1_000, 4096 * MIB).default(8 * MIB),
  WEBSOCKET_IDLE_TIMEOUT_MS: integer('WEBSOCKET_IDLE_TIMEOUT_MS', 1000, 3_600_000).default(30_000),
  // Unset: local origins in development, none in production.
  CORS_ORIGINS: origins.optional(),
  // Unset: any in development; production needs it set.
  ALLOWED_HOSTS: hostNames.optional(),
  // Unset: on when no upstream URL is set, except in production.
  SIMULATOR: flag('SIMULATOR').optional(),
  METRICS_PATH: z
    .string()
    .trim()
    .regex(/^(off|\/[\w./-]*)$/, 'METRICS_PATH must be a path such as /metrics, or off')
    .default('/metrics'),
  // The OpenTelemetry SDK's standard variables (the ones this gateway supports).
  OTEL_SDK_DISABLED: flag('OTEL_SDK_DISABLED').default(false),
  OTEL_TRACES_EXPORTER: z
    .enum(['otlp', 'console', 'none'], { error: 'OTEL_TRACES_EXPORTER must be one of otlp, console, none' })
    .optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(['http/protobuf', 'http/json'], {
      error: 'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (grpc is not supported)',
    })
    .default('http/protobuf'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z
    .enum(['http/protobuf', 'http/json'], {
      error: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http/protobuf or http/json (grpc is not supported)',
    })
    .optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT').optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT').optional(),
  OTEL_SERVICE_NAME: z.string().trim().default('order-graph'),
  OTEL_TRACES_SAMPLER: z
    .enum(SAMPLERS, { error: `OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}` })
    .default('parentbased_traceidratio'),
  // Unset: every trace in development, one in ten new traces in production (a caller's sampled
  // traceparent is always followed): a recorded trace costs its request about a third more CPU.
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .trim()
    .refine((v) => /^(0|1|0?\.\d+|1\.0*)$/.test(v), 'OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1')
    .transform(Number)
    .optional(),
  NODE_ENV: z.string().trim().default('development'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  // Unset: on, but off when NODE_ENV=production.
  GRAPHIQL: flag('GRAPHIQL').optional(),
  INTROSPECTION: flag('INTROSPECTION').optional(),
  // Unset: on, but off when NODE_ENV=production.
  TRACKER: flag('TRACKER').optional(),
  TRUSTED_DOCUMENTS: z.enum(['off', 'allow', 'only'], { error: 'TRUSTED_DOCUMENTS must be one of off, allow, only' }).default('off'),
  ...(Object.fromEntries(HOSTS.map((name) => [name, httpUrl(name).optional()])) as Record<
    HostName,
    z.ZodOptional<ReturnType<typeof httpUrl>>
  >),
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
  if (parsed.success && production && parsed.data.ALLOWED_HOSTS === undefined) {
    problems.push(
      'NODE_ENV=production needs ALLOWED_HOSTS: the host names clients reach the gateway by (api.example.com), or * for any (IP addresses are always answered)',
    );
  }
  // The public side (the shipped nginx file and Ingress) routes /graphql and /tracker/: metrics there would be public.
  if (parsed.success && /^\/(graphql$|tracker(\/|$))/.test(parsed.data.METRICS_PATH)) {
    problems.push('METRICS_PATH must be off the public paths (/graphql, /tracker/): e.g. /metrics');
  }
  if (parsed.success && parsed.data.HEADERS_TIMEOUT_MS > parsed.data.REQUEST_TIMEOUT_MS) {
    problems.push('HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS (the headers are part of the request)');
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  return toConfig(parsed.data);
}

/** Every setting, in one object: serve.ts reads it and hands each part to its reader. */
export type Config = ReturnType<typeof toConfig>;
/** What the HTTP server reads (http-server.ts). */
export type HttpServerSettings = ReturnType<typeof httpServerSettings>;
/** What createGateway reads (gateway.ts), besides `trustedProxies`, which the HTTP server reads too. */
export type GatewaySettings = ReturnType<typeof gatewaySettings>;

function toConfig(values: EnvValues) {
  return { ...processSettings(values), ...httpServerSettings(values), ...gatewaySettings(values) };
}

/** What serve.ts itself reads: where to listen, the upstream or the simulator, how a stop goes, logs and traces. */
function processSettings(values: EnvValues) {
  return {
    port: values.PORT,
    host: values.HOST,
    /** null: the embedded simulator serves the upstream (never unless asked for in production). */
    upstreamUrls: upstreamUrls(values),
    /** How long a stop waits for in-flight requests. */
    shutdownGraceMs: values.SHUTDOWN_GRACE_MS,
    logLevel: values.LOG_LEVEL,
    /** OpenTelemetry tracing from the standard OTEL_* variables; null when off (nothing configured). */
    tracing: tracingSettings(values),
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

function gatewaySettings(values: EnvValues) {
  const production = values.NODE_ENV === 'production';
  const upstreamBudget: BudgetLimits = {
    calls: values.UPSTREAM_CALLS_PER_REQUEST,
    concurrency: values.UPSTREAM_CONCURRENCY_PER_REQUEST,
    retries: values.UPSTREAM_RETRIES_PER_REQUEST,
  };
  const live: LiveLimits = {
    pollIntervalMs: values.LIVE_POLL_INTERVAL_MS,
    perCustomer: values.LIVE_STREAMS_PER_CUSTOMER,
    perAddress: values.LIVE_STREAMS_PER_ADDRESS,
    snapshotBytes: values.LIVE_SNAPSHOT_BYTES,
  };
  const responseCacheBytes: ResponseCacheBytes = { entry: values.RESPONSE_CACHE_ENTRY_BYTES, total: values.RESPONSE_CACHE_BYTES };
  const historyBounds: HistoryBounds = {
    eventsPerOrder: values.HISTORY_EVENTS_PER_ORDER,
    maxAgeMs: values.HISTORY_MAX_AGE_DAYS * 86_400_000,
    customerBytes: values.HISTORY_CUSTOMER_BYTES,
  };
  return {
    upstreamTimeoutMs: values.UPSTREAM_TIMEOUT_MS,
    upstreamRetries: values.UPSTREAM_RETRIES,
    /** The upstream client's transport: undici (the default, the cheaper per call) or got. */
    upstreamClient: values.UPSTREAM_CLIENT,
    /** The whole request's budget: no upstream call outlives it, retries included. */
    requestDeadlineMs: values.REQUEST_DEADLINE_MS,
    /** What one request may make the upstream do (calls include retries). */
    upstreamBudget,
    /** What one caller (a verified customer, else an address) may have in flight at once, on every transport together. */
    callerLimits: {
      operations: values.CALLER_OPERATIONS_IN_FLIGHT,
      upstreamCalls: values.CALLER_UPSTREAM_CALLS_IN_FLIGHT,
    } satisfies CallerLimits,
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
    live,
    /** Shared state across replicas (live polls, login counters, the response cache); null: each process alone. */
    redisUrl: values.REDIS_URL ?? null,
    /** How long any Redis command may take; past it the gateway acts as with Redis away. */
    redisCommandTimeoutMs: values.REDIS_COMMAND_TIMEOUT_MS,
    /** How long a caller's query answers are kept for that caller; 0: no response cache. */
    responseCacheTtlMs: values.RESPONSE_CACHE_TTL_MS,
    /** The response cache's bytes: one answer at most, and all answers together (in this process, or in Redis for all replicas). */
    responseCacheBytes,
    /**
     * Order history: null when off (nothing is kept); else its bounds, and the bytes the
     * stories may take in all: in this process, or in Redis for all replicas.
     */
    history: values.HISTORY ? { bounds: historyBounds, totalBytes: values.HISTORY_BYTES } : null,
    /** Serve as an Apollo Federation v2 subgraph (`_service`, `_entities`). */
    subgraph: values.SUBGRAPH,
  };
}

function throttles(values: EnvValues) {
  return {
    /**
     * Failed logins (attempts the upstream refused), in each window: per username and client
     * address, `perUsernameAndAddress` free, then a delay before each further attempt
     * (`firstDelaySeconds`, doubling, at most the window); per client address across usernames
     * (`perAddress`) and per username from all addresses (`perUsername`, a ceiling well above
     * what one address can reach), refused for the rest of the window past them.
     */
    loginThrottle: {
      perUsernameAndAddress: values.LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS,
      firstDelaySeconds: values.LOGIN_FAILURE_DELAY_S,
      perUsername: values.LOGIN_FAILURES_PER_USERNAME,
      perAddress: values.LOGIN_FAILURES_PER_ADDRESS,
      windowSeconds: values.LOGIN_FAILURE_WINDOW_S,
    },
    /** Failed token refreshes (tokens the upstream refused) allowed per client address and per refresh token in each window. */
    refreshThrottle: {
      perAddress: values.REFRESH_FAILURES_PER_ADDRESS,
      perToken: values.REFRESH_FAILURES_PER_TOKEN,
      windowSeconds: values.REFRESH_FAILURE_WINDOW_S,
    },
  };
}

/** All five upstream URLs (loadConfig refuses a part of them), or null: none set. */
function upstreamUrls(values: EnvValues): UpstreamUrls | null {
  const urls = HOSTS.map((name) => [name, values[name]] as const);
  return urls.every(([, url]) => url !== undefined) ? (Object.fromEntries(urls) as UpstreamUrls) : null;
}

/**
 * Tracing is on when an exporter is named, or an OTLP endpoint is set without one: with
 * nothing configured it stays off and costs nothing (the SDK is not even loaded).
 */
function tracingSettings(values: EnvValues): TracingSettings | null {
  const exporter =
    values.OTEL_TRACES_EXPORTER ?? (values.OTEL_EXPORTER_OTLP_ENDPOINT || values.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp' : 'none');
  if (values.OTEL_SDK_DISABLED || exporter === 'none') return null;
  const base = values.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '') ?? 'http://localhost:4318';
  return {
    exporter,
    protocol: values.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? values.OTEL_EXPORTER_OTLP_PROTOCOL,
    // The signal's own endpoint is used as it is; the general one gets the signal's path.
    endpoint: values.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`,
    serviceName: values.OTEL_SERVICE_NAME,
    sampler: values.OTEL_TRACES_SAMPLER,
    samplerRatio: values.OTEL_TRACES_SAMPLER_ARG ?? (values.NODE_ENV === 'production' ? PRODUCTION_SAMPLE_RATIO : 1),
  };
}

/** The share of new traces recorded in production when OTEL_TRACES_SAMPLER_ARG is unset. */
export const PRODUCTION_SAMPLE_RATIO = 0.1;

const URL_NAMES = HOSTS.join(', ');

/** The upstream is all five URLs, or the simulator: never a mix, never the simulator in production unless asked for. */
function upstreamProblems(setUrls: readonly HostName[], simulator: boolean | undefined, production: boolean): string[] {
  if (setUrls.length > 0 && setUrls.length < HOSTS.length) {
    const missing = HOSTS.filter((name) => !setUrls.includes(name));
    return [
      `Upstream configured only in part: ${missing.join(', ')} missing. Set all five upstream URLs, or none to use the embedded simulator`,
    ];
  }
  if (setUrls.length > 0 && simulator === true)
    return [`SIMULATOR=on serves demo data instead of the upstream: unset ${URL_NAMES}, or SIMULATOR`];
  if (setUrls.length > 0) return [];
  if (simulator === false) return [`SIMULATOR=off needs the upstream: set ${URL_NAMES}`];
  if (production && simulator === undefined) {
    return [`NODE_ENV=production needs the upstream: set ${URL_NAMES} (or SIMULATOR=on to serve the embedded simulator's demo data)`];
  }
  return [];
}
