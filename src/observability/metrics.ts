// Observability: Prometheus metrics (prom-client, yoga's prometheus plugin), served at GET
// on their own path. Every label value is bounded: operation names the SDK registered (else
// "other"), error codes, contract operationIds, status classes; never an id or a raw path.
import { createCounter, createHistogram, usePrometheus } from '@graphql-yoga/plugin-prometheus';
import type { Plugin } from 'graphql-yoga';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ApiErrorCode } from '../error-codes.js';
import type { Loaders } from '../graph/loaders.js';
import type { CallObserver, CallOutcome } from '../upstream/http.js';
import type { RequestScope } from '../upstream/scope.js';

export interface Metrics {
  plugins: Plugin[];
  callObserver: CallObserver;
  registry: Registry;
  /** Counts a connection the HTTP server closed itself, by why (slow_reader, per_address, max_connections, request_timeout). */
  countConnectionCut(reason: string): void;
  /** Reports live streams and polls from the hub's counts, and whether Redis is reachable when there is one. */
  observeSharedState(sources: SharedStateSources): void;
}

/** Where the shared-state gauges read from: the live hub, Redis when configured, the order histories kept in this process when they are. */
export interface SharedStateSources {
  live: () => LiveStats;
  redisAvailable?: () => boolean;
  history?: () => { customers: number; bytes: number };
}

/** What the live hub counts in this process. */
export interface LiveStats {
  customers: number;
  watchers: number;
  polls: number;
  /** Estimated heap of the watched customers' last polls, and the polls refused for want of room. */
  snapshotBytes: number;
  snapshotsRefused: number;
}

// The envelop metrics this gateway does not report (each costs time on every request).
const OFF = {
  graphql_envelop_deprecated_field: false,
  graphql_envelop_request: false,
  graphql_envelop_request_duration: false,
  graphql_envelop_request_time_summary: false,
  graphql_envelop_phase_parse: false,
  graphql_envelop_phase_validate: false,
  graphql_envelop_phase_context: false,
  graphql_envelop_phase_execute: false,
  graphql_envelop_phase_subscribe: false,
  graphql_envelop_schema_change: false,
} as const;

// The code the caller sees for an error that has none yet when it is counted.
const PHASE_CODES: Record<string, ApiErrorCode> = { parse: 'GRAPHQL_PARSE_FAILED', validate: 'GRAPHQL_VALIDATION_FAILED', execute: 'INTERNAL_SERVER_ERROR' };

/** An upstream call's status as a label: 2xx…5xx, or what went wrong without one (timeout, network…). */
const statusClass = ({ status }: CallOutcome) => (typeof status === 'number' ? `${Math.floor(status / 100)}xx` : status);

/** Upstream calls by operation and status class with their duration, retries, and calls refused. */
function upstreamCallMetrics(registry: Registry): CallObserver {
  const upstreamCalls = new Histogram({
    name: 'order_graph_upstream_call_duration_seconds',
    help: 'Upstream calls by contract operationId and status class (2xx…5xx, or timeout, network, malformed, oversized, exhausted, cancelled), with their duration.',
    labelNames: ['operation', 'status_class'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const retries = new Counter({ name: 'order_graph_upstream_retries_total', help: 'Retries of upstream calls, by operationId.', labelNames: ['operation'], registers: [registry] });
  const refusals = new Counter({
    name: 'order_graph_upstream_calls_refused_total',
    help: 'Upstream calls not made: the request had spent its budget (budget), or an id could not be sent (unsendable).',
    labelNames: ['operation', 'reason'],
    registers: [registry],
  });
  return {
    start: (operation) => ({
      end(outcome) {
        upstreamCalls.observe({ operation, status_class: statusClass(outcome) }, outcome.ms / 1000);
        if (outcome.retries > 0) retries.inc({ operation }, outcome.retries);
      },
    }),
    refused: (operation, reason) => refusals.inc({ operation, reason }),
  };
}

/** Requests in flight, and the loads the DataLoaders served without a call of their own. */
function requestCounts(registry: Registry): Plugin {
  const saved = new Counter({ name: 'order_graph_dataloader_loads_saved_total', help: 'Loads the per-request DataLoaders served without an upstream call of their own.', registers: [registry] });
  const inFlight = new Gauge({ name: 'order_graph_http_requests_in_flight', help: 'HTTP requests being handled.', registers: [registry] });
  return {
    instrumentation: {
      request: async (_payload, wrapped) => {
        inFlight.inc();
        try {
          return await wrapped();
        } finally {
          inFlight.dec();
        }
      },
    },
    onExecute: () => ({
      onExecuteDone({ args }) {
        const { stats } = (args.contextValue as { loaders?: Loaders }).loaders ?? {};
        if (stats && stats.loads > stats.fetches) saved.inc(stats.loads - stats.fetches);
      },
    }),
  };
}

/**
 * yoga's prometheus plugin, serving the registry at `path`: GraphQL requests by operation and
 * outcome (read from the request's scope: any error answered) with their duration, and errors by code.
 */
function graphqlMetrics(registry: Registry, path: string, knownOperations: readonly string[]): Plugin {
  const known = new Set(knownOperations);
  const operationLabel = (name: string | undefined) => (!name ? 'anonymous' : known.has(name) ? name : 'other');
  return usePrometheus({
    registry,
    endpoint: path,
    metrics: {
      ...OFF,
      graphql_yoga_http_duration: createHistogram({
        registry,
        histogram: {
          name: 'graphql_yoga_http_duration',
          help: 'GraphQL requests by operation name (the registered ones, else "other") and outcome (ok, errors, refused), with their duration.',
          labelNames: ['operationName', 'outcome'],
        },
        fillLabelsFn: (params, { response, scope }: { response: Response; scope?: RequestScope }) => ({
          operationName: operationLabel(params.operationName),
          outcome: response.status >= 400 ? 'refused' : scope && scope.errorCodes.size > 0 ? 'errors' : 'ok',
        }),
      }),
      graphql_envelop_error_result: createCounter({
        registry,
        counter: { name: 'graphql_envelop_error_result', help: 'GraphQL errors by extensions.code and the phase they came from.', labelNames: ['code', 'phase'] },
        fillLabelsFn: ({ error, errorPhase = 'execute' }) => ({
          code: String((error as { extensions?: { code?: unknown } } | undefined)?.extensions?.code ?? PHASE_CODES[errorPhase] ?? PHASE_CODES.execute),
          phase: errorPhase,
        }),
      }),
    },
  }) as Plugin;
}

/** Live streams and polls, read from the hub's counts when scraped (nothing to update on the live path), and whether Redis answers. */
function sharedStateMetrics(registry: Registry, { live, redisAvailable, history }: SharedStateSources): void {
  const gauge = (name: string, help: string, read: () => number) => new Gauge({ name, help, registers: [registry], collect() { this.set(read()); } });
  gauge('order_graph_live_streams', 'Live order-update streams open in this process.', () => live().watchers);
  gauge('order_graph_live_customers', 'Customers whose orders this process follows for its live streams.', () => live().customers);
  gauge('order_graph_live_snapshot_bytes', "Estimated heap the watched customers' last polls take in this process (LIVE_SNAPSHOT_BYTES bounds it).", () => live().snapshotBytes);
  /** A counter read from the hub's running total when scraped. */
  const counterOf = (name: string, help: string, read: (stats: LiveStats) => number) => {
    let counted = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const now = read(live());
        this.inc(now - counted);
        counted = now;
      },
    });
  };
  counterOf('order_graph_live_polls_total', "Upstream polls of customers' order lists made by this process.", (stats) => stats.polls);
  counterOf('order_graph_live_snapshots_refused_total', "Customers' polls refused for want of room under LIVE_SNAPSHOT_BYTES (their streams ended with RATE_LIMITED).", (stats) => stats.snapshotsRefused);
  if (history) {
    gauge('order_graph_history_customers', 'Customers whose order history this process keeps (without Redis).', () => history().customers);
    gauge('order_graph_history_bytes', 'Estimated heap the order histories kept in this process take (HISTORY_BYTES bounds it).', () => history().bytes);
  }
  if (redisAvailable) gauge('order_graph_redis_up', 'Whether Redis answered (1) or not (0): while 0, each process throttles, polls and caches alone.', () => (redisAvailable() ? 1 : 0));
}

/**
 * The gateway's metrics, in a registry of its own: requests by operation and outcome with
 * their duration, errors by code, upstream calls by operation and status class with their
 * duration, retries, budget refusals, loads the DataLoaders saved, requests in flight, and
 * the process's default metrics.
 */
export function createMetrics({ path, knownOperations }: { path: string; knownOperations: readonly string[] }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const connectionsCut = new Counter({
    name: 'order_graph_connections_cut_total',
    help: 'Connections the server closed itself: slow_reader (unsent data held too long), per_address (MAX_CONNECTIONS_PER_ADDRESS), max_connections, request_timeout.',
    labelNames: ['reason'],
    registers: [registry],
  });
  return {
    plugins: [requestCounts(registry), graphqlMetrics(registry, path, knownOperations)],
    registry,
    countConnectionCut: (reason) => connectionsCut.inc({ reason }),
    observeSharedState: (sources) => sharedStateMetrics(registry, sources),
    callObserver: upstreamCallMetrics(registry),
  };
}
