// The server: where a request enters. createGateway assembles yoga, its plugins and the graph.
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { createYoga, useExecutionCancellation, type CORSOptions, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import {
  createContext,
  notificationsOff,
  type ContextServices,
  type GraphQLContext,
  type Notifications,
  type OrderHistory,
} from '../graph/context.js';
import type { DeliveryQueue } from '../notify/contracts.js';
import type { NotifyQueueTiming } from './notifications.js';
import { createHistory, NO_HISTORY } from '../graph/history.js';
import { memoryHistoryStore, type MemoryHistoryStore } from '../graph/history-memory.js';
import { createGraphSchema } from '../graph/schema.js';
import { createOrdersHub } from '../live/orders-hub.js';
import { connectRedis, KEY_PREFIX, warnOncePerKind, type RedisConnection } from '../redis/connection.js';
import { redisPollCoordinator } from '../redis/live-coordinator.js';
import { redisResponseStore } from '../redis/response-cache.js';
import { redisHistoryStore } from '../redis/history.js';
import { GatewayError } from '../errors.js';
import { bearerDigest } from '../upstream/auth.js';
import type { UpstreamUrls } from '../upstream/contract.js';
import { undiciTransport } from '../upstream/undici-transport.js';
import { createUpstreamHttp, type Transport, type TransportFactory, type TransportOptions, type UpstreamHttp } from '../upstream/http.js';
import { createOperations, type Operations } from '../upstream/operations.js';
import { createCallBudget } from '../upstream/budget.js';
import { CallScope, combineObservers, type CallObserver, type ScopeLimits } from '../upstream/scope.js';
import { ByteCeiling } from '../upstream/bytes.js';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';
import type { GatewaySettings, HttpServerSettings } from './config.js';
import { createDocumentCache } from './document-cache.js';
import { useEventContexts } from './event-contexts.js';
import { useJitWhereItPays } from './executor.js';
import { useGraphiQLPage, type DemoLogin } from './graphiql.js';
import { useHardening } from './guards/index.js';
import { maskError } from './guards/quiet-errors.js';
import { hostAllowed, useAllowedHosts } from './guards/request.js';
import { HEALTH_PATH, READY_PATH, useHealthEndpoints } from './health.js';
import { useHeldBytes } from './held-bytes.js';
import { useRequestLifecycle } from './lifecycle.js';
import { LIMITS } from './limits.js';
import { useMergedPhases } from './merged-hooks.js';
import { createCallers, useCallerLimits, type Callers } from './callers.js';
import { createLoginThrottle } from './login-throttle.js';
import type { RequestRecord } from './request-record.js';
import { trustedProxies, type ScopeSettings, type ServerContext } from './request-scope.js';
import { createResponseCache, type ResponseCache } from './response-cache.js';
import { builtTrackerFolder, useTrackerPage } from './tracker.js';
import { registeredDocuments, registeredOperationNames, useTrustedDocuments } from './trusted-documents.js';
import { createWebSocketEndpoint, type WebSocketEndpoint } from './websocket.js';

export type GatewayConfig = GatewaySettings &
  Pick<HttpServerSettings, 'trustedProxies' | 'headersTimeoutMs'> & {
    upstreamUrls: UpstreamUrls;
    logger?: Logger;
    /** The simulator's demo customers, offered by GraphiQL's sign-in bar and the tracker page's sign-in. */
    demoLogins?: readonly DemoLogin[];
    /** The built tracker page's folder; by default where the build puts it (builtTrackerFolder). */
    trackerFolder?: string | null;
    /** Tracing, when it is on (serve.ts starts it from the OTEL_* settings). */
    tracing?: Tracing;
    /**
     * The upstream transport, in place of UPSTREAM_CLIENT's: set only by tests, whose gateways
     * reach an in-process simulator through it (test/helpers/simulator-transport.ts).
     */
    upstreamTransport?: TransportFactory;
    /** The notifications' delivery queue, in place of the gateway's own: set only by tests. */
    notifyQueue?: DeliveryQueue;
    /** The delivery queue's retries, lock and stalled-job check, in place of the defaults: set only by tests. */
    notifyQueueTiming?: NotifyQueueTiming;
  };

export interface Gateway {
  yoga: YogaServerInstance<ServerContext, GraphQLContext>;
  /**
   * Marks the gateway as stopping: /readyz answers 503, every answer closes its connection,
   * live streams end and their polls are handed over, and each WebSocket closes (1001) once
   * its operations have ended. Resolves when the streams have ended and the sockets are gone.
   */
  drain(): Promise<void>;
  /** The HTTP server's `upgrade` listener: GraphQL over WebSocket on /graphql (websocket.ts). */
  onUpgrade: WebSocketEndpoint['upgrade'];
  /** Closes the upstream and Redis connections; call after the HTTP server stopped taking requests. */
  close(): Promise<void>;
  /** Counts a connection the HTTP server cut (its `onCut`). */
  onConnectionCut(reason: string): void;
}

// Where GraphQL is served: HTTP, SSE and WebSocket alike.
const GRAPHQL_PATH = '/graphql';

// Any port of the machine itself: the development default, for a frontend's dev server.
const LOCAL_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

/** Whether CORS_ORIGINS lets a page from `origin` in: for HTTP (corsPolicy) and WebSocket upgrades alike. */
const originAllowed = (origins: GatewayConfig['corsOrigins']) => (origin: string) =>
  origins === 'local' ? LOCAL_ORIGIN.test(origin) : origins.includes('*') || origins.includes(origin);

/**
 * Cross-origin access for the allowed origins only, and without credentials: the API takes a
 * bearer token, never a cookie. An origin not allowed (`null` included) gets no CORS headers,
 * so the browser keeps the answer from the page. An allowed one is reflected (`*` included),
 * so every answer depends on the request's Origin: each carries `Vary: Origin` (headers.ts).
 */
function corsPolicy(origins: GatewayConfig['corsOrigins']) {
  const allowed = originAllowed(origins);
  return (request: Request): CORSOptions => {
    const origin = request.headers.get('origin');
    if (!origin || !allowed(origin)) return false;
    return { origin: [origin], credentials: false, exposedHeaders: ['x-request-id'], maxAge: 600 };
  };
}

/** got's transport, its modules loaded only when it is chosen: the default (undici) never pays for them. */
function gotTransportLoaded(urls: UpstreamUrls, options: TransportOptions): Transport {
  const loading = import('../upstream/got-transport.js').then(({ gotTransport }) => gotTransport(urls, options));
  return {
    attempt: async (...args) => (await loading).attempt(...args),
    close: () => void loading.then((transport) => transport.close()),
  };
}

/** The upstream client, over the transport UPSTREAM_CLIENT names (each request's scope says who watches its calls). */
function upstreamClient(config: GatewayConfig) {
  return createUpstreamHttp({
    urls: config.upstreamUrls,
    transport: config.upstreamTransport ?? (config.upstreamClient === 'got' ? gotTransportLoaded : undiciTransport),
    timeoutMs: config.upstreamTimeoutMs,
    retries: config.upstreamRetries,
    maxBodyBytes: LIMITS.maxUpstreamBodyBytes,
    logger: config.logger,
  });
}

/**
 * Who watches upstream calls, made for each request: the metrics' observer (one for every
 * call) with the traces' over the request's record (the trace its calls join); a live poll's
 * calls, made under no request, get the traces' over none. None when neither is on.
 */
function callObservers(metrics: Metrics | undefined, tracing: Tracing | undefined): (record?: RequestRecord) => CallObserver | undefined {
  if (!tracing) return () => metrics?.callObserver;
  return (record) => combineObservers(metrics?.callObserver, tracing.callObserver(record));
}

/** What outlives a request, in Redis when configured (shared by the replicas): login counters, the response cache. */
function sharedState(config: GatewayConfig) {
  const redis = config.redisUrl
    ? connectRedis(config.redisUrl, { commandTimeoutMs: config.redisCommandTimeoutMs, logger: config.logger })
    : undefined;
  const loginThrottle = createLoginThrottle(
    { login: config.loginThrottle, refresh: config.refreshThrottle },
    redis && { redis, keyPrefix: KEY_PREFIX },
  );
  const responseCache =
    config.responseCacheTtlMs > 0
      ? createResponseCache({
          ttlMs: config.responseCacheTtlMs,
          bytes: config.responseCacheBytes,
          store: redis && redisResponseStore(redis, config.responseCacheBytes),
          logger: config.logger,
        })
      : undefined;
  return { redis, loginThrottle, responseCache, ...orderHistory(config, redis) };
}

/** The order history: none when HISTORY=off, else in Redis when configured, else in this process (`memory`, for the metrics). */
function orderHistory(config: GatewayConfig, redis: RedisConnection | undefined): { history: OrderHistory; memory?: MemoryHistoryStore } {
  if (!config.history) return { history: NO_HISTORY };
  const { bounds, totalBytes } = config.history;
  const memory = redis ? undefined : memoryHistoryStore(totalBytes);
  const store =
    memory ??
    redisHistoryStore(redis!, { customerBytes: bounds.customerBytes, totalBytes, maxAgeMs: bounds.maxAgeMs, logger: config.logger });
  const warn = warnOncePerKind(config.logger);
  const history = createHistory({
    store,
    bounds,
    ignored: (reason) =>
      redis
        ? redis.ignore('order history', reason)
        : warn('order history', { reason }, 'an order history kept here was not all of its shape: what was not is dropped'),
    mixed: () => warn('mixed order list', {}, 'an order list carried more than one customer id: no history was recorded from it'),
    failed: (error) =>
      config.logger?.error(
        { err: error instanceof Error ? error.message : String(error) },
        'an order list was not recorded in the order history',
      ),
  });
  return { history, memory };
}

/**
 * Notifications: off, the graph's notificationsOff and nothing loaded; on, server/notifications.ts
 * loaded now (with src/notify and the channels' libraries) and the service asked once it is.
 */
function notifications(
  config: GatewayConfig,
  { redis, history, background }: { redis?: RedisConnection; history: OrderHistory; background: ReturnType<typeof notifyUpstream> },
) {
  const settings = config.notify;
  if (!settings) return { service: notificationsOff, close: async () => undefined };
  const starting = import('./notifications.js').then(({ startNotifications }) =>
    startNotifications({
      settings,
      labels: config.codeLabels,
      redis,
      redisUrl: config.redisUrl ?? undefined,
      ...background,
      observe: history.observe,
      logger: config.logger,
      queue: config.notifyQueue,
      queueTiming: config.notifyQueueTiming,
    }),
  );
  // A failure to start is each request's error (and logged here once), never an unhandled rejection.
  starting.catch((error: unknown) => config.logger?.error({ err: String(error) }, 'notifications could not start'));
  const started = async () => (await starting).service;
  const service: Notifications = {
    settings: async () => (await started()).settings(),
    targets: async (...args) => (await started()).targets(...args),
    add: async (...args) => (await started()).add(...args),
    remove: async (...args) => (await started()).remove(...args),
    sendTest: async (...args) => (await started()).sendTest(...args),
  };
  return { service, close: async () => (await starting.catch(() => undefined))?.close() };
}

/** The plugins in the order they must run; `ready` is false once a stop has begun. */
function gatewayPlugins(
  config: GatewayConfig,
  parts: {
    policy: ScopeSettings;
    ceiling: ByteCeiling;
    callers: Callers;
    ready: () => boolean;
    redis?: RedisConnection;
    metrics?: Metrics;
    responseCache?: ResponseCache;
    worthCompiling: Parameters<typeof useJitWhereItPays>[0];
  },
) {
  const { tracing, metricsPath } = config;
  const { policy, ceiling, callers, ready, redis, metrics, responseCache } = parts;
  return [
    // Every plugin's hooks of a phase, yoga's own included, run as one hook (merged-hooks.ts), in the order below.
    useMergedPhases(),
    // First: every later hook finds the request's scope in the server context.
    useRequestLifecycle({
      logger: config.logger,
      policy,
      isDraining: () => !ready(),
      quietPaths: [HEALTH_PATH, READY_PATH, ...(metricsPath ? [metricsPath] : [])],
    }),
    // A Host the gateway does not answer for (a DNS-rebinding page's) gets nothing else.
    useAllowedHosts(config.allowedHosts),
    // Before anything that may answer early: every request is counted in and out. Scrapes are
    // answered before the request guards (a scraper sends no CSRF header).
    ...(metrics ? [metrics.plugin] : []),
    ...(tracing ? [tracing.plugin] : []),
    useHealthEndpoints({
      isReady: ready,
      readinessDetails: () => ({ ...(redis && { redis: redis.state() }), memory: ceiling.shedding() ? 'shedding' : 'ok' }),
    }),
    ...useHardening({ introspection: config.introspection }),
    // After the refusals that come before any work: a refused request holds nothing.
    useHeldBytes(ceiling, policy),
    ...(config.graphiql ? [useGraphiQLPage(config.demoLogins ?? [])] : []),
    ...(config.tracker
      ? [
          useTrackerPage({
            folder: config.trackerFolder === undefined ? builtTrackerFolder() : config.trackerFolder,
            endpoint: GRAPHQL_PATH,
            demoLogins: config.demoLogins ?? [],
            pollIntervalMs: config.live.pollIntervalMs,
            persistedDocuments: config.trustedDocuments !== 'off',
          }),
        ]
      : []),
    useDeferStream(),
    useEventContexts((context: GraphQLContext, event) => context.forEvent(event as Parameters<GraphQLContext['forEvent']>[0])),
    useJitWhereItPays(parts.worthCompiling),
    // After the refusals that come before any work (a refused operation takes no slot), and
    // after the executor is chosen (its executor is the one watched).
    useCallerLimits(callers),
    // A client that goes away cancels its request: no further upstream call starts (the
    // request's signal reaches the upstream layer through its scope) and execution stops.
    // Not for subscriptions: @graphql-tools/executor races each event against one
    // request-long promise, and every race stays attached to it (about 1.2 kB per event for
    // as long as the stream lives). A stream ends with its client anyway (yoga cancels the
    // SSE body, which returns the iterator), and its events' calls stop through their scope.
    { ...useExecutionCancellation(), onSubscribe: undefined },
    ...(config.trustedDocuments !== 'off' ? [useTrustedDocuments(config.trustedDocuments)] : []),
    // After the trusted documents: an answer is keyed by the document they resolve to.
    ...(responseCache?.plugins ?? []),
  ];
}

/**
 * A call made outside any request (a live poll, a credential check, a notification poll), with
 * a byte budget of its own given back when it is done; a token the upstream refused has its
 * caller's cached answers go too.
 */
function backgroundCalls(
  http: UpstreamHttp,
  policy: ScopeSettings,
  responseCache: ResponseCache | undefined,
  observer: CallObserver | undefined,
) {
  return async <T>(token: string, limits: ScopeLimits, call: (operations: Operations) => Promise<T>): Promise<T> => {
    const bytes = policy.bytes();
    try {
      return await call(createOperations(http, CallScope.forPoll(token, limits, bytes, observer)));
    } catch (error) {
      if (error instanceof GatewayError && error.code === 'UNAUTHENTICATED') await responseCache?.forgetCaller(bearerDigest(token));
      throw error;
    } finally {
      bytes.release();
    }
  };
}

/** The live order streams: polled with the gateway's upstream client, shared over Redis when there is one. */
function ordersHub(
  config: GatewayConfig,
  policy: ScopeSettings,
  callers: Callers,
  { redis, responseCache, history }: Pick<ReturnType<typeof sharedState>, 'redis' | 'responseCache' | 'history'>,
  polled: ReturnType<typeof backgroundCalls>,
) {
  return createOrdersHub({
    limits: config.live,
    requestLimits: policy,
    logger: config.logger,
    fetchOrders: (token, limits) => polled(token, limits, (operations) => operations.orderDetails()),
    checkToken: async (token, limits) => (await polled(token, limits, (operations) => operations.customerDetails())).id,
    coordinator:
      redis &&
      redisPollCoordinator(redis, {
        pollIntervalMs: config.live.pollIntervalMs,
        snapshotBytes: config.live.snapshotBytes,
        logger: config.logger,
      }),
    customerAllowance: callers.customerAllowance,
    onChanges: responseCache && ((_customerId, orderIds) => void responseCache.forgetOrders(orderIds)),
    observe: history.observe,
  });
}

/**
 * The notification watcher's upstream calls, made as a live poll's are: each poll gets a
 * request's budget (counted in the customer's allowance of calls in flight) and deadline.
 */
function notifyUpstream(policy: ScopeSettings, callers: Callers, polled: ReturnType<typeof backgroundCalls>) {
  return {
    newLimits: (customerId: string): ScopeLimits => ({
      deadline: Date.now() + policy.deadlineMs,
      budget: createCallBudget(policy.budget, callers.customerAllowance(customerId)),
    }),
    upstream: {
      // The refresh token is its own bearer: the watcher has no live access token to send.
      refreshTokens: (refreshToken: string, limits: ScopeLimits) =>
        polled(refreshToken, limits, (operations) => operations.refreshTokens(refreshToken)),
      orderDetails: (accessToken: string, limits: ScopeLimits) => polled(accessToken, limits, (operations) => operations.orderDetails()),
    },
  };
}

/** How each request is scoped (its deadline, budgets, caller and watchers), and the ceiling their bytes share. */
function requestPolicy(config: GatewayConfig, callers: Callers, observeCalls: ScopeSettings['observeCalls']) {
  const ceiling = new ByteCeiling(config.bytes.inFlight, config.bytes);
  const policy: ScopeSettings = {
    deadlineMs: config.requestDeadlineMs,
    budget: config.upstreamBudget,
    trustProxy: trustedProxies(config.trustedProxies),
    callers,
    observeCalls,
    bytes: () => ceiling.budget(config.bytes.request),
  };
  return { policy, ceiling };
}

/** Builds the gateway (schema, upstream clients, yoga); listening is the caller's business. */
export function createGateway(config: GatewayConfig): Gateway {
  const metrics = config.metricsPath ? createMetrics({ path: config.metricsPath, knownOperations: registeredOperationNames() }) : undefined;
  const http = upstreamClient(config);
  const { redis, loginThrottle, responseCache, history, memory } = sharedState(config);
  const callers = createCallers(config.callerLimits);
  const observeCalls = callObservers(metrics, config.tracing);
  const { policy, ceiling } = requestPolicy(config, callers, observeCalls);
  const polled = backgroundCalls(http, policy, responseCache, observeCalls());
  const live = ordersHub(config, policy, callers, { redis, responseCache, history }, polled);
  metrics?.observeSharedState({
    live: live.stats,
    heldBytes: () => ({ bytes: ceiling.held, shedding: ceiling.shedding() }),
    redisAvailable: redis?.available,
    history: memory?.stats,
  });
  const documents = createDocumentCache({ maxBytes: config.documentCacheBytes, trustedSources: new Set(registeredDocuments().values()) });
  const { codeLabels, requestDeadlineMs: deadlineMs } = config;
  const notify = notifications(config, { redis, history, background: notifyUpstream(policy, callers, polled) });
  const { verified } = callers;
  const services: ContextServices = { http, loginThrottle, live, history, codeLabels, notifications: notify.service, deadlineMs, verified };
  let ready = true;
  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema: createGraphSchema({ subgraph: config.subgraph }),
    // The scope and record were made when the request arrived (useRequestLifecycle).
    context: ({ scope, record }) => createContext(scope!, services, record!.loads, config.tracing?.fieldTracer(record!)),
    cors: corsPolicy(config.corsOrigins),
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    logging: config.logger ?? false,
    // Unexpected errors become "Unexpected error." in every environment (the logs have the
    // detail); a value a field cannot hold, that field's UPSTREAM_ERROR (guards/quiet-errors.ts).
    maskedErrors: { isDev: false, maskError },
    // Enforced by useBodyLimit (guards/request.ts), which spares the common request yoga's stream.
    maxRequestBodySize: false,
    batching: false,
    parserAndValidationCache: documents.parserAndValidationCache,
    // Served by useGraphiQLPage, precompressed.
    graphiql: false,
    plugins: gatewayPlugins(config, {
      policy,
      ceiling,
      callers,
      ready: () => ready,
      redis,
      metrics,
      responseCache,
      worthCompiling: documents.worthCompiling,
    }),
  });
  const sockets = createWebSocketEndpoint({
    yoga,
    policy,
    path: GRAPHQL_PATH,
    originAllowed: originAllowed(config.corsOrigins),
    hostAllowed: hostAllowed(config.allowedHosts),
    trustedDocuments: config.trustedDocuments,
    hideSuggestions: !config.introspection,
    initTimeoutMs: config.headersTimeoutMs,
    idleTimeoutMs: config.webSocketIdleTimeoutMs,
    isReady: () => ready,
    logger: config.logger,
  });
  return {
    yoga,
    drain: async () => {
      ready = false;
      // A socket's operations end within a request's deadline, its subscriptions with the hub.
      await Promise.all([live.close(), sockets.drain(config.requestDeadlineMs)]);
    },
    onUpgrade: sockets.upgrade,
    close: async () => {
      await notify.close();
      http.close();
      await redis?.close();
    },
    onConnectionCut: (reason) => metrics?.countConnectionCut(reason),
  };
}
