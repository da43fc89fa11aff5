// The server: where a request enters. createGateway assembles yoga, its plugins and the graph.
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { getOperationAST, type ExecutionArgs } from 'graphql';
import { createYoga, useExecutionCancellation, type CORSOptions, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { createContext, type GraphQLContext } from '../graph/context.js';
import { createGraphSchema } from '../graph/schema.js';
import { createOrdersHub } from '../live/orders-hub.js';
import { connectRedis, KEY_PREFIX } from '../redis/connection.js';
import { redisPollCoordinator } from '../redis/live-coordinator.js';
import { redisAnswerStore } from '../redis/response-cache.js';
import { readAuth } from '../upstream/auth.js';
import type { UpstreamUrls } from '../upstream/contract.js';
import { combineObservers, createUpstreamHttp } from '../upstream/http.js';
import { createOperations } from '../upstream/operations.js';
import { createMetrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';
import type { GatewaySettings, HttpServerSettings } from './config.js';
import { useGraphiQLPage, type DemoLogin } from './graphiql.js';
import { LIMITS } from './limits.js';
import { createLoginThrottle } from './login-throttle.js';
import { HEALTH_PATH, READY_PATH, useHardening, useRequestLifecycle, usesDeferOrStream } from './plugins.js';
import { liveEventScope, pollScope, requestInfo, trustedProxies, type RequestPolicy } from './request-info.js';
import { createResponseCache } from './response-cache.js';
import { registeredDocuments, registeredOperationNames, useTrustedDocuments } from './trusted-documents.js';
import { createDocumentCache } from './document-cache.js';

export type GatewayConfig = GatewaySettings & Pick<HttpServerSettings, 'trustedProxies'> & {
  upstreamUrls: UpstreamUrls;
  logger?: Logger;
  /** The simulator's demo customers, offered by GraphiQL's sign-in bar. */
  demoLogins?: readonly DemoLogin[];
  /** Tracing, when it is on (serve.ts starts it from the OTEL_* settings). */
  tracing?: Tracing;
};

export interface Gateway {
  yoga: YogaServerInstance<object, GraphQLContext>;
  /** Marks the gateway as stopping: /readyz answers 503, every answer closes its connection, live streams end and their polls are handed over. */
  drain(): Promise<void>;
  /** Closes the upstream and Redis connections; call after the HTTP server stopped taking requests. */
  close(): Promise<void>;
  /** Counts a connection the HTTP server cut (its `onCut`). */
  onConnectionCut(reason: string): void;
}

// Any port of the machine itself: the development default, for a frontend's dev server.
const LOCAL_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

/**
 * Cross-origin access for the allowed origins only, and without credentials: the API takes a
 * bearer token, never a cookie. An origin not allowed (`null` included) gets no CORS headers,
 * so the browser keeps the answer from the page. An allowed one is reflected (`*` included),
 * so every answer depends on the request's Origin: each carries `Vary: Origin` (headers.ts).
 */
function corsPolicy(origins: GatewayConfig['corsOrigins']) {
  const allowed = (origin: string) => (origins === 'local' ? LOCAL_ORIGIN.test(origin) : origins.includes('*') || origins.includes(origin));
  return (request: Request): CORSOptions => {
    const origin = request.headers.get('origin');
    if (!origin || !allowed(origin)) return false;
    return { origin: [origin], credentials: false, exposedHeaders: ['x-request-id'], maxAge: 600 };
  };
}

/** graphql-jit compiles queries and mutations; subscriptions and @defer/@stream take the standard executor. */
const jitFor = ({ document, operationName }: ExecutionArgs) =>
  getOperationAST(document, operationName)?.operation !== 'subscription' && !usesDeferOrStream(document);

/** Builds the gateway (schema, upstream clients, yoga); listening is the caller's business. */
export function createGateway(config: GatewayConfig): Gateway {
  const { tracing, metricsPath } = config;
  const metrics = metricsPath ? createMetrics({ path: metricsPath, knownOperations: registeredOperationNames() }) : undefined;
  const http = createUpstreamHttp({
    urls: config.upstreamUrls,
    timeoutMs: config.upstreamTimeoutMs,
    retries: config.upstreamRetries,
    maxBodyBytes: LIMITS.maxUpstreamBodyBytes,
    logger: config.logger,
    observer: combineObservers([metrics?.callObserver, tracing?.callObserver].filter((observer) => observer !== undefined)),
  });
  // Shared by the replicas when configured: login counters, live polls, the response cache.
  const redis = config.redisUrl ? connectRedis(config.redisUrl, { commandTimeoutMs: config.redisCommandTimeoutMs, logger: config.logger }) : undefined;
  const loginThrottle = createLoginThrottle({ login: config.loginThrottle, refresh: config.refreshThrottle }, redis && { redis, keyPrefix: KEY_PREFIX });
  const responseCache =
    config.responseCacheTtlMs > 0
      ? createResponseCache({ ttlMs: config.responseCacheTtlMs, bytes: config.responseCacheBytes, store: redis && redisAnswerStore(redis, config.responseCacheBytes), logger: config.logger })
      : undefined;
  const policy: RequestPolicy = { deadlineMs: config.requestDeadlineMs, budget: config.upstreamBudget, trustProxy: trustedProxies(config.trustedProxies) };
  const live = createOrdersHub({
    limits: config.live,
    requestLimits: { deadlineMs: config.requestDeadlineMs, budget: config.upstreamBudget },
    logger: config.logger,
    fetchOrders: (token, budget) => createOperations(http, { token, expired: false, expiresAt: null }, pollScope(budget)).orderDetails(),
    coordinator: redis && redisPollCoordinator(redis, { pollIntervalMs: config.live.pollIntervalMs, snapshotBytes: config.live.snapshotBytes, logger: config.logger }),
    onChanges: responseCache && ((_customerId, orderIds) => void responseCache.forgetOrders(orderIds)),
  });
  metrics?.observeSharedState({ live: live.stats, redisAvailable: redis?.available });
  const documents = createDocumentCache({ maxBytes: config.documentCacheBytes, trustedSources: new Set(registeredDocuments().values()) });
  let ready = true;
  const yoga = createYoga<object, GraphQLContext>({
    schema: createGraphSchema({ subgraph: config.subgraph }),
    context: ({ request }) => {
      const scope = requestInfo(request);
      return createContext(http, readAuth(request.headers.get('authorization')), scope, {
        loginThrottle,
        live,
        fieldTracer: tracing?.fieldTracer,
        liveScope: (budget) => liveEventScope(scope, policy, budget),
      });
    },
    cors: corsPolicy(config.corsOrigins),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: config.logger ?? false,
    // Unexpected errors become "Unexpected error." with no stack or original message, in
    // every environment: the logs have the detail.
    maskedErrors: { isDev: false },
    maxRequestBodySize: LIMITS.maxRequestBodyBytes,
    batching: false,
    parserAndValidationCache: documents.parserAndValidationCache,
    // Served by useGraphiQLPage, precompressed.
    graphiql: false,
    plugins: [
      ...(tracing ? [tracing.requestPlugin] : []),
      useRequestLifecycle({
        logger: config.logger,
        policy,
        isReady: () => ready,
        readinessDetails: redis && (() => ({ redis: redis.state() })),
        quietPaths: [HEALTH_PATH, READY_PATH, ...(metricsPath ? [metricsPath] : [])],
        logFields: tracing?.logFields,
      }),
      // Scrapes are answered before the request guards (a scraper sends no CSRF header).
      ...(metrics?.plugins ?? []),
      ...useHardening({ introspection: config.introspection }),
      ...(config.graphiql ? [useGraphiQLPage(config.demoLogins ?? [])] : []),
      useDeferStream(),
      useGraphQlJit({}, { enableIf: (args) => jitFor(args) && documents.earnsCompilation(args) }),
      // A client that goes away cancels its request: no further upstream call starts (the
      // request's signal reaches the upstream layer through its scope) and execution stops.
      // Not for subscriptions: @graphql-tools/executor races each event against one
      // request-long promise, and every race stays attached to it (about 1.2 kB per event for
      // as long as the stream lives). A stream ends with its client anyway (yoga cancels the
      // SSE body, which returns the iterator), and its events' calls stop through their scope.
      { ...useExecutionCancellation(), onSubscribe: undefined },
      ...(tracing ? [tracing.operationPlugin] : []),
      ...(config.introspection ? [] : [useDisableIntrospection()]),
      ...(config.trustedDocuments !== 'off' ? [useTrustedDocuments(config.trustedDocuments)] : []),
      // After the trusted documents: an answer is keyed by the document they resolve to.
      ...(responseCache?.plugins ?? []),
    ],
  });
  return {
    yoga,
    drain: () => {
      ready = false;
      return live.close();
    },
    close: async () => {
      http.close();
      await redis?.close();
    },
    onConnectionCut: (reason) => metrics?.countConnectionCut(reason),
  };
}
