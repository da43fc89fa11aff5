// The gateway's settings: the environment validated at once into the Config the server is given.
//
// One source per setting. The schema (envSchema) states each environment variable once: its
// name, bounds, message, default and what it does; docs/configuration.md is written from it
// (npm run docs:config; test/unit/config-doc.test.ts fails when the page is behind). The
// functions after loadConfig say where each value goes, grouped by who reads it, and Config is
// inferred from them: no interface restates it, and gateway.ts and http-server.ts take their
// part by name (GatewaySettings, HttpServerSettings) instead of listing settings again. The
// layers below the server may not import this file, so where one needs a shape (the upstream's
// BudgetLimits, the live hub's LiveLimits) that layer states it, with what each limit means to
// it, and the part is typed as that shape here: the compiler checks the mapping against it, and
// Config['live'] is LiveLimits, not a copy. Zod schemas down there instead would restate those
// shapes in another form, while the bounds and messages name environment variables, which only
// this file knows.
import { isIP } from 'node:net';
import { getHeapStatistics } from 'node:v8';
import { z } from 'zod';
import type { LiveLimits } from '../live/orders-hub.js';
import { SAMPLERS, type TracingSettings } from '../observability/settings.js';
import type { BudgetLimits } from '../upstream/budget.js';
import { SHED_FOR_MS } from '../upstream/bytes.js';
import { HOSTS, type HostName, type UpstreamUrls } from '../upstream/contract.js';
import type { ResponseCacheBytes } from '../redis/response-cache.js';
import type { HistoryBounds } from '../graph/customer-history.js';
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
 * Settings no operator tunes, kept as constants: the retries one request may make in all
 * (whatever UPSTREAM_RETRIES allows per call), the window of the login and refresh counters
 * (also the longest wait), and the refusals of one refresh token in a window.
 */
const RETRIES_PER_REQUEST = 4;
const FAILURE_WINDOW_S = 900;
const REFRESH_FAILURES_PER_TOKEN = 5;

/** LIVE_POLL_INTERVAL_MS when unset, in front of the real service. */
export const LIVE_POLL_INTERVAL_MS = 30_000;
/**
 * LIVE_POLL_INTERVAL_MS when unset, in front of the embedded simulator (npm start's demo): a
 * move of the demo order, on its timer or when asked for, reaches a subscriber within 5 s
 * instead of 30. The simulator tells no one of a move, as the real service would not: the demo
 * shows the same polling, only faster, where polls cost a local simulator nothing.
 */
export const DEMO_LIVE_POLL_INTERVAL_MS = 5_000;

/**
 * The upstream calls a request may make by default: a whole order of the default page, rounded
 * up to the next ten so that a retry or two fit. It follows the operations: a per-order call
 * added to the table raises it.
 */
export const DEFAULT_UPSTREAM_CALLS = Math.ceil(wholeOrderCalls(defaultOrdersPage()) / 10) * 10;

/**
 * What a whole order of the default page holds, its upstream answers and its answer: the
 * simulator's fullest customer's, about 186 kB (test/integration/byte-budgets.test.ts measures
 * it, and holds this above it). A request holding more than this gives way to newcomers while
 * the requests in flight have no room (upstream/bytes.ts).
 */
export const WHOLE_PAGE_BYTES = 200_000;

/**
 * REQUEST_BYTES when unset: what one request may hold. Twenty whole pages, rounded up to 4 MiB:
 * room for one upstream answer at its 2 MB cap beside a page.
 */
export const DEFAULT_REQUEST_BYTES = 4 * MIB;

/**
 * IN_FLIGHT_BYTES when unset: this share of the V8 heap the process runs with (63 MB under the
 * Deployment's 640 Mi). What a request holds in bytes takes some four times as much heap while it
 * is read, copied and written (the text, the parsed JSON, the answer's text and its buffer), and
 * the heap holds the documents, the cached answers, the live snapshots and the histories beside
 * it (32 MiB each at most): an eighth keeps a crowd of large answers well inside the heap.
 */
export const IN_FLIGHT_SHARE_OF_HEAP = 1 / 8;

/** The upstream URLs share one description: docs/configuration.md shows them as one row. */
const UPSTREAM_URL =
  "The upstream's base URLs, one per host of the contract (`upstream/openapi.yaml` names each path's host in `x-base`): http or https, without query or fragment; a base may carry a path prefix, and the contract's path is appended to it. None set: the embedded simulator serves them (not in production, see `SIMULATOR`). Some but not all: the gateway refuses to start and names the missing ones.";

/**
 * Every environment variable the gateway reads, validated and defaulted. Each says what it
 * does (`describe`, or `meta` with `unset` for what an unset variable without a default
 * means): docs/configuration.md is generated from them (npm run docs:config).
 */
export const envSchema = z.object({
  PORT: integer('PORT', 0, 65535).default(4000).describe('The TCP port the gateway listens on; `0` picks a free one.'),
  HOST: z
    .string()
    .trim()
    .min(1, 'HOST must not be empty')
    .default('127.0.0.1')
    .describe('The address the gateway listens on. A container sets `0.0.0.0`: every address of the machine.'),
  UPSTREAM_TIMEOUT_MS: integer('UPSTREAM_TIMEOUT_MS', 1, 600_000).default(5000).describe('How long each upstream call may take.'),
  UPSTREAM_RETRIES: integer('UPSTREAM_RETRIES', 0, 5)
    .default(1)
    .describe(
      'Retries of an idempotent GET after a connection error or a 502, 503 or 504. Never for a POST, never after a timeout, and only while a whole further attempt fits in the request deadline.',
    ),
  UPSTREAM_CLIENT: z
    .enum(['undici', 'got'], { error: 'UPSTREAM_CLIENT must be undici or got' })
    .default('undici')
    .describe(
      'The HTTP client of the upstream calls: `undici` (a connection pool per host, the cheaper per call) or `got`. Both behave alike in every other respect (timeouts, the size cap, retries, cancellation); docs/ARCHITECTURE.md says why undici is the default.',
    ),
  REQUEST_DEADLINE_MS: integer('REQUEST_DEADLINE_MS', 1, 600_000)
    .default(10_000)
    .describe("The whole request's time budget: no upstream call outlives it, retries included."),
  UPSTREAM_CALLS_PER_REQUEST: integer('UPSTREAM_CALLS_PER_REQUEST', 1, 10_000)
    .default(DEFAULT_UPSTREAM_CALLS)
    .describe(
      'Upstream calls one request may make, retries included. The default is what a whole order of the default page of orders takes (each customer call once, each per-order call once per order), rounded up to the next ten. The fields past it are null with `UPSTREAM_BUDGET_EXCEEDED`.',
    ),
  REQUEST_BYTES: integer('REQUEST_BYTES', 10_000, 1024 * MIB)
    .default(DEFAULT_REQUEST_BYTES)
    .describe(
      'What one request may hold: the upstream answers it read (counted as they arrive) and the answer built from them (estimated before it is written); a live event has its own. Past it the request ends, `data` null with `ANSWER_TOO_LARGE`; other requests are untouched. The default is twenty times a whole order of the default page.',
    ),
  IN_FLIGHT_BYTES: integer('IN_FLIGHT_BYTES', 100_000, 64 * 1024 * MIB)
    .optional()
    .meta({
      description:
        'What all requests in flight may hold together, counted as `REQUEST_BYTES` counts. A request that needs more than is left makes room first: requests holding more than it would end with `OVERLOADED`, the largest first. When that is not room enough it ends itself, and for a second new requests are refused, `OVERLOADED` with HTTP status 503 and `Retry-After: 1` (`/readyz` says `"memory": "shedding"`).',
      unset: 'an eighth of the V8 heap the process runs with (63 MB under the Deployment’s 640 Mi)',
    }),
  UPSTREAM_CONCURRENCY_PER_REQUEST: integer('UPSTREAM_CONCURRENCY_PER_REQUEST', 1, 256)
    .default(16)
    .describe('Upstream calls of one request in flight at once; the others wait their turn within the deadline.'),
  // Sized for a browser tab or two: a page's queries at once, each at its full concurrency.
  CALLER_OPERATIONS_IN_FLIGHT: integer('CALLER_OPERATIONS_IN_FLIGHT', 1, 100_000)
    .default(32)
    .describe(
      'Queries and mutations one caller may have in flight at once, over HTTP, SSE, multipart and WebSocket together (a streamed answer until its last part). Past it: 429 `RATE_LIMITED` before anything runs. A caller is the customer the upstream verified its token as; a token not verified yet, itself (on every address), and its client address too, until verified; with no token, its client address (an IPv6 /64 counts as one). Open live streams are held by the `LIVE_STREAMS_*` limits instead.',
    ),
  CALLER_UPSTREAM_CALLS_IN_FLIGHT: integer('CALLER_UPSTREAM_CALLS_IN_FLIGHT', 1, 100_000)
    .default(64)
    .describe(
      'Upstream calls one caller may have in flight at once, all its requests and live streams together; the others wait their turn within their deadline.',
    ),
  LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: integer('LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS', 1, 1000)
    .default(5)
    .describe(
      'Failed logins free per username and client address in a window. After them each attempt must wait (`LOGIN_FAILURE_DELAY_S`): `RATE_LIMITED` with `retryAfterSeconds`, and no upstream call. A successful login clears the count.',
    ),
  LOGIN_FAILURE_DELAY_S: integer('LOGIN_FAILURE_DELAY_S', 1, 86_400)
    .default(30)
    .describe(
      'The first wait once a username and address have used their free failures; it doubles after each further failure, up to the window.',
    ),
  LOGIN_FAILURES_PER_USERNAME: integer('LOGIN_FAILURES_PER_USERNAME', 1, 100_000)
    .default(100)
    .describe(
      'Failed logins per username from all addresses in a window: a ceiling only many addresses together reach. Past it everyone, the owner too, waits for the window to end, so a low value (5, say) lets anyone lock anyone out.',
    ),
  LOGIN_FAILURES_PER_ADDRESS: integer('LOGIN_FAILURES_PER_ADDRESS', 1, 100_000)
    .default(20)
    .describe('Failed logins per client address across usernames in a window; past it, `RATE_LIMITED` for the rest of the window.'),
  REFRESH_FAILURES_PER_ADDRESS: integer('REFRESH_FAILURES_PER_ADDRESS', 1, 100_000)
    .default(20)
    .describe(
      'Refresh tokens the upstream refused, per client address in a window. More are `RATE_LIMITED` with `retryAfterSeconds`, with no upstream call; successful refreshes cost nothing.',
    ),
  LIVE_POLL_INTERVAL_MS: integer('LIVE_POLL_INTERVAL_MS', 100, 3_600_000).optional().meta({
    description:
      'How often a customer with open `orderUpdates` streams has its order list polled. In front of the embedded simulator it is 5 s, so a move of the demo order (its timer, or `POST /__simulator/advance`) reaches GraphiQL, the tracker page and `--watch` within 5 s; a local simulator takes the polls at no cost.',
    unset: '`30000` (`5000` with the embedded simulator)',
  }),
  LIVE_STREAMS_PER_CUSTOMER: integer('LIVE_STREAMS_PER_CUSTOMER', 1, 10_000)
    .default(50)
    .describe('Open live streams per customer, SSE and WebSocket together; past it, `RATE_LIMITED`.'),
  LIVE_STREAMS_PER_ADDRESS: integer('LIVE_STREAMS_PER_ADDRESS', 1, 100_000)
    .default(200)
    .describe('Open live streams per client address; past it, `RATE_LIMITED`.'),
  REDIS_URL: z
    .string()
    .trim()
    .refine(
      (v) => URL.canParse(v) && ['redis:', 'rediss:'].includes(new URL(v).protocol),
      'REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://redis:6379',
    )
    .optional()
    .describe(
      '`redis://` or `rediss://`: the state the replicas share (login counters, live polls, order histories, cached answers). Unset: each process keeps its own, as a single replica needs.',
    ),
  REDIS_COMMAND_TIMEOUT_MS: integer('REDIS_COMMAND_TIMEOUT_MS', 10, 60_000)
    .default(500)
    .describe(
      'How long any Redis command may take. Past it the replica works alone (its own login counters and polls, no cache) until Redis answers a PING again (one a second), and `/readyz` says `"redis": "degraded"`.',
    ),
  RESPONSE_CACHE_TTL_MS: integer('RESPONSE_CACHE_TTL_MS', 0, 60_000)
    .default(0)
    .describe(
      "How long a caller's query answers are kept, for that caller alone; `0`: no response cache. In Redis when `REDIS_URL` is set, else in memory. HTTP only: a query over a WebSocket runs afresh.",
    ),
  RESPONSE_CACHE_ENTRY_BYTES: integer('RESPONSE_CACHE_ENTRY_BYTES', 1_000, 100 * MIB)
    .default(MIB)
    .describe('The largest answer the response cache keeps; a larger one is answered, not kept.'),
  RESPONSE_CACHE_BYTES: integer('RESPONSE_CACHE_BYTES', 10_000, 4096 * MIB)
    .default(32 * MIB)
    .describe(
      'All cached answers together, in this process or in Redis for all replicas. Past it the least recently used (in memory) or the oldest (in Redis) go first; expired answers go at their ttl.',
    ),
  DOCUMENT_CACHE_BYTES: integer('DOCUMENT_CACHE_BYTES', 1_000_000, 4096 * MIB)
    .default(32 * MIB)
    .describe(
      'The heap the documents kept between requests (parsed and validated, and compiled by graphql-jit once they run a second time or when registered) may take, estimated; the least recently used go first.',
    ),
  LIVE_SNAPSHOT_BYTES: integer('LIVE_SNAPSHOT_BYTES', 100_000, 4096 * MIB)
    .default(32 * MIB)
    .describe(
      "The heap the watched customers' last polls may take in one process (estimated, on the high side). A customer whose poll does not fit has its streams end with `RATE_LIMITED`.",
    ),
  HISTORY: flag('HISTORY')
    .default(true)
    .describe("Keep each order's history (`Order.history`). `off` keeps nothing anywhere, and every `history` is `[]`."),
  HISTORY_EVENTS_PER_ORDER: integer('HISTORY_EVENTS_PER_ORDER', 1, 10_000).default(100).describe('The newest events kept per order.'),
  HISTORY_MAX_AGE_DAYS: integer('HISTORY_MAX_AGE_DAYS', 1, 3650)
    .default(400)
    .describe('Events older than this are dropped; a Redis history key expires this long after its last write.'),
  HISTORY_CUSTOMER_BYTES: integer('HISTORY_CUSTOMER_BYTES', 10_000, 64 * MIB)
    .default(256 * 1024)
    .describe("One customer's history at most, as JSON, in memory and in Redis; past it the oldest events go first."),
  HISTORY_BYTES: integer('HISTORY_BYTES', 100_000, 4096 * MIB)
    .default(32 * MIB)
    .describe(
      "All customers' histories together. Without `REDIS_URL`, kept in this process (estimated heap; past it the least recently used customers are forgotten); with it, in Redis for all replicas (past it the histories written longest ago go first).",
    ),
  SUBGRAPH: flag('SUBGRAPH').default(false).describe('Serve as an Apollo Federation v2 subgraph (`_service`, `_entities`).'),
  TRUSTED_PROXIES: trustedProxies
    .default([])
    .describe(
      "The proxies in front of the gateway, by address: comma-separated IPs and CIDR ranges (`10.0.0.0/8`, `127.0.0.1`), or `loopback`, `linklocal`, `uniquelocal`. Only a connection from one of them has its `X-Forwarded-For` believed: the client address (for throttling and the per-address limits, and forwarded upstream) is then the entry the nearest trusted proxy added, else the socket's. A forwarded entry that is not an IP is ignored. A hop count is refused.",
    ),
  SHUTDOWN_GRACE_MS: integer('SHUTDOWN_GRACE_MS', 0, 600_000)
    .default(10_000)
    .describe('On SIGTERM or SIGINT, how long requests in flight may take before their connections are closed.'),
  HEADERS_TIMEOUT_MS: integer('HEADERS_TIMEOUT_MS', 1000, 600_000)
    .default(10_000)
    .describe(
      'A client must send its request headers within this from connecting, else 408 and the connection is closed; a WebSocket its `connection_init` from the upgrade, else it is closed with 4408. At most `REQUEST_TIMEOUT_MS`.',
    ),
  REQUEST_TIMEOUT_MS: integer('REQUEST_TIMEOUT_MS', 1000, 600_000)
    .default(30_000)
    .describe('A client must send its whole request (headers and body) within this, else 408 and the connection is closed.'),
  KEEP_ALIVE_TIMEOUT_MS: integer('KEEP_ALIVE_TIMEOUT_MS', 1000, 600_000)
    .default(5000)
    .describe('An idle keep-alive connection is closed after this.'),
  MAX_CONNECTIONS: integer('MAX_CONNECTIONS', 1, 1_000_000)
    .default(4096)
    .describe(
      'Open client connections at most; more are closed on arrival (logged at warn). The process needs about this many file handles, plus 1,280 for upstream sockets, and warns at start-up when its limit is lower.',
    ),
  MAX_CONNECTIONS_PER_ADDRESS: integer('MAX_CONNECTIONS_PER_ADDRESS', 1, 1_000_000)
    .default(256)
    .describe(
      "Open connections from one client address at most; more are closed on arrival. Behind a trusted proxy it counts that client's requests in flight instead, and answers 429 `RATE_LIMITED` past it.",
    ),
  SLOW_READER_BYTES: integer('SLOW_READER_BYTES', 1_000, 1024 * MIB)
    .default(MIB)
    .describe(
      'A connection whose unsent answer stays above this for `SLOW_READER_TIMEOUT_MS` is closed: plain, multipart, SSE and WebSocket answers alike.',
    ),
  SLOW_READER_TIMEOUT_MS: integer('SLOW_READER_TIMEOUT_MS', 1000, 3_600_000)
    .default(10_000)
    .describe(
      "How long a connection's unsent answer may stay above `SLOW_READER_BYTES`, or not shrink at all (its reader stopped), before the connection is closed.",
    ),
  SLOW_READER_BYTES_PER_ADDRESS: integer('SLOW_READER_BYTES_PER_ADDRESS', 1_000, 4096 * MIB)
    .default(8 * MIB)
    .describe(
      "The unsent data of all of one client address's connections together (behind a trusted proxy, its forwarded client's). Past it, the connections holding the most are closed at once until the rest fit.",
    ),
  WEBSOCKET_IDLE_TIMEOUT_MS: integer('WEBSOCKET_IDLE_TIMEOUT_MS', 1000, 3_600_000)
    .default(30_000)
    .describe('A WebSocket running no operation is closed (1000) after this, before `connection_init` and after it; pings do not count.'),
  CORS_ORIGINS: origins.optional().meta({
    description:
      'Comma-separated origins allowed cross-origin access (`https://app.example.com`), or `*`; never with credentials (the API takes a bearer token, no cookie). A WebSocket upgrade from a browser page of another origin is refused (403).',
    unset: 'local origins (`localhost`, `127.0.0.1`, `[::1]`, any port); none in production',
  }),
  ALLOWED_HOSTS: hostNames.optional().meta({
    description:
      "Comma-separated host names clients reach the gateway by (`api.example.com`), or `*`. A request or WebSocket upgrade whose `Host` is another name is refused with 421 `HOST_NOT_ALLOWED`, as a DNS-rebinding page's are. An IP address is always answered: probes and Prometheus reach pods by address.",
    unset: 'any; production refuses to start without it',
  }),
  SIMULATOR: flag('SIMULATOR').optional().meta({
    description:
      'The embedded simulator of the REST service, with its demo logins, in place of the upstream. In production it must be asked for; with the upstream URLs set it cannot be.',
    unset: '`on` without upstream URLs, except in production',
  }),
  METRICS_PATH: z
    .string()
    .trim()
    .regex(/^(off|\/[\w./-]*)$/, 'METRICS_PATH must be a path such as /metrics, or off')
    .default('/metrics')
    .describe(
      "Where Prometheus metrics are served (`GET`, on the gateway's port), or `off`. Not `/graphql` or under `/tracker/`: keep it off the public side.",
    ),
  // The OpenTelemetry SDK's standard variables (the ones this gateway supports).
  OTEL_SDK_DISABLED: flag('OTEL_SDK_DISABLED').default(false).describe('`true` (or `on`) turns tracing off, whatever else is set.'),
  OTEL_TRACES_EXPORTER: z
    .enum(['otlp', 'console', 'none'], { error: 'OTEL_TRACES_EXPORTER must be one of otlp, console, none' })
    .optional()
    .meta({
      description: 'Where spans go. Tracing is on with `otlp` or `console`.',
      unset: '`none`, or `otlp` when an OTLP endpoint is set',
    }),
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(['http/protobuf', 'http/json'], {
      error: 'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (grpc is not supported)',
    })
    .default('http/protobuf')
    .describe('How spans are sent to the collector (gRPC is not supported).'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z
    .enum(['http/protobuf', 'http/json'], {
      error: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http/protobuf or http/json (grpc is not supported)',
    })
    .optional()
    .meta({ description: 'The same for traces alone, in place of the general one.', unset: "`OTEL_EXPORTER_OTLP_PROTOCOL`'s" }),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT')
    .optional()
    .meta({ description: 'The collector; `/v1/traces` is appended. Setting it turns tracing on.', unset: '`http://localhost:4318`' }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT').optional().meta({
    description: 'The traces endpoint, used as it is. Setting it turns tracing on.',
    unset: 'the general endpoint with `/v1/traces` appended',
  }),
  OTEL_SERVICE_NAME: z.string().trim().default('order-graph').describe('The `service.name` of every span.'),
  OTEL_TRACES_SAMPLER: z
    .enum(SAMPLERS, { error: `OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}` })
    .default('parentbased_traceidratio')
    .describe(
      "Which requests are traced. The default follows a caller's `traceparent`, sampled or not, and records a new trace at the ratio `OTEL_TRACES_SAMPLER_ARG` gives.",
    ),
  // Unset: every trace in development, one in ten new traces in production (a caller's sampled
  // traceparent is always followed): a recorded trace costs its request about a third more CPU.
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .trim()
    .refine((v) => /^(0|1|0?\.\d+|1\.0*)$/.test(v), 'OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1')
    .transform(Number)
    .optional()
    .meta({
      description: 'The share of new traces recorded (from 0 to 1), for the `traceidratio` samplers.',
      unset: '`1` (`0.1` in production)',
    }),
  NODE_ENV: z
    .string()
    .trim()
    .default('development')
    .describe(
      '`production` turns GraphiQL, introspection, the tracker page and cross-origin access off unless they are set, records one new trace in ten, logs JSON on a terminal too, and refuses to start without the upstream (unless `SIMULATOR=on`) or without `ALLOWED_HOSTS`.',
    ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info')
    .describe(
      "The log's level (pino). The log is JSON lines on stdout; on a terminal outside production, lines for a person (pino-pretty).",
    ),
  GRAPHIQL: flag('GRAPHIQL')
    .optional()
    .meta({ description: 'The GraphiQL page at `/graphql`, self-hosted: it works offline.', unset: '`on` (`off` in production)' }),
  INTROSPECTION: flag('INTROSPECTION')
    .optional()
    .meta({ description: 'Schema introspection, and the field suggestions that go with it.', unset: '`on` (`off` in production)' }),
  TRACKER: flag('TRACKER').optional().meta({
    description: 'The order-tracker page at `/tracker/`, served where `npm run build` built it (the container image does).',
    unset: '`on` (`off` in production)',
  }),
  TRUSTED_DOCUMENTS: z
    .enum(['off', 'allow', 'only'], { error: 'TRUSTED_DOCUMENTS must be one of off, allow, only' })
    .default('off')
    .describe(
      'Which documents run: `off`, any; `allow`, the registered documents by hash and full documents too; `only`, the registered documents by hash alone.',
    ),
  ...(Object.fromEntries(HOSTS.map((name) => [name, httpUrl(name).optional().describe(UPSTREAM_URL)])) as Record<
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
    /** NODE_ENV=production: the logs are JSON on a terminal too (readable lines there otherwise). */
    production: values.NODE_ENV === 'production',
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
    retries: RETRIES_PER_REQUEST,
  };
  const live: LiveLimits = {
    pollIntervalMs: values.LIVE_POLL_INTERVAL_MS ?? (upstreamUrls(values) ? LIVE_POLL_INTERVAL_MS : DEMO_LIVE_POLL_INTERVAL_MS),
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
    /**
     * The bytes one request may hold (its upstream answers and its answer), all requests in
     * flight together, and how long new work is refused once no room can be made for them.
     */
    bytes: {
      request: values.REQUEST_BYTES,
      inFlight: values.IN_FLIGHT_BYTES ?? Math.floor(getHeapStatistics().heap_size_limit * IN_FLIGHT_SHARE_OF_HEAP),
      shedMs: SHED_FOR_MS,
      smallBytes: WHOLE_PAGE_BYTES,
    },
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
     * histories may take in all: in this process, or in Redis for all replicas.
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
      windowSeconds: FAILURE_WINDOW_S,
    },
    /** Failed token refreshes (tokens the upstream refused) allowed per client address and per refresh token in each window. */
    refreshThrottle: {
      perAddress: values.REFRESH_FAILURES_PER_ADDRESS,
      perToken: REFRESH_FAILURES_PER_TOKEN,
      windowSeconds: FAILURE_WINDOW_S,
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
