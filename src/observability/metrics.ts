// Observability: Prometheus metrics (prom-client), served at GET
// on their own path. Every label value is bounded: operation names the SDK registered (else
// "other"), error codes, contract operationIds, status classes; never an id or a raw path.
import type { Plugin } from 'graphql-yoga';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { OPERATION_NAMES, type OperationName } from '../upstream/contract.js';
import type { CallObserver, CallOutcome, CallWatch } from '../upstream/scope.js';
import type { LoadStats } from '../graph/loaders.js';

export interface Metrics {
  /** Counts each request from its record, and serves the registry: right after the plugin that makes the record. */
  plugin: Plugin;
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
  /** The bytes the requests in flight hold (IN_FLIGHT_BYTES bounds them), and whether new work is being refused for want of room. */
  heldBytes: () => { bytes: number; shedding: boolean };
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

/** What the metrics read of a request when its answer goes out: the server's record of it (request-record.ts) holds it. */
export interface RequestFacts {
  /** Epoch ms when the request arrived. */
  readonly startedAt: number;
  /** Whether the operation began to run: errors answered before that refused it on the way in. */
  readonly began: boolean;
  readonly operationName: string | null;
  /** The errors answered, how many of each code. */
  readonly errorCodes: ReadonlyMap<string, number>;
  readonly loads: Readonly<LoadStats>;
}

/** The phase an error came from: the operation's run, or the way in (a document that does not parse, does not validate, or a request refused before either). */
const phaseOf = (code: string, began: boolean) =>
  began ? 'execute' : code === 'GRAPHQL_PARSE_FAILED' ? 'parse' : code === 'GRAPHQL_VALIDATION_FAILED' ? 'validate' : 'request';

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
  const retries = new Counter({
    name: 'order_graph_upstream_retries_total',
    help: 'Retries of upstream calls, by operationId.',
    labelNames: ['operation'],
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'order_graph_upstream_calls_refused_total',
    help: 'Upstream calls not made: the request had spent its budget (budget), or an id could not be sent (unsendable).',
    labelNames: ['operation', 'reason'],
    registers: [registry],
  });
  // One watch per operation, made once: a call costs nothing to start.
  const watches = new Map<OperationName, CallWatch>(
    OPERATION_NAMES.map((operation) => [
      operation,
      {
        end(outcome) {
          upstreamCalls.observe({ operation, status_class: statusClass(outcome) }, outcome.ms / 1000);
          if (outcome.retries > 0) retries.inc({ operation }, outcome.retries);
        },
      },
    ]),
  );
  return {
    start: (operation) => watches.get(operation)!,
    refused: (operation, reason) => refusals.inc({ operation, reason }),
  };
}

/** A gauge read when scraped: nothing to update where the value changes. */
const gaugeOf = (registry: Registry, name: string, help: string, read: () => number) =>
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(read());
    },
  });

/** A counter read from a running total when scraped. */
function counterOf(registry: Registry, name: string, help: string, read: () => number) {
  let counted = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = read();
      this.inc(now - counted);
      counted = now;
    },
  });
}

/**
 * The request metrics, read from each request's record when its answer goes out (one plugin,
 * plain hooks: nothing wraps the request): GraphQL requests by operation (the registered
 * names, else "other") and outcome with their duration, errors by code and phase, the loads
 * the DataLoaders saved, requests in flight. The registry is served at `path`.
 */
function requestMetrics(
  registry: Registry,
  path: string,
  knownOperations: readonly string[],
): Plugin<Record<string, unknown>, { record?: RequestFacts }> {
  const known = new Set(knownOperations);
  const operationLabel = (name: string | null) => (!name ? 'anonymous' : known.has(name) ? name : 'other');
  // The names (and the label names) of yoga's and envelop's prometheus plugins, which these replace.
  const requests = new Histogram({
    name: 'graphql_yoga_http_duration',
    help: 'GraphQL requests by operation name (the registered ones, else "other") and outcome (ok, errors, refused), with their duration.',
    labelNames: ['operationName', 'outcome'],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'graphql_envelop_error_result',
    help: 'GraphQL errors answered, by extensions.code and the phase they came from (parse, validate, execute, or request: refused before parsing).',
    labelNames: ['code', 'phase'],
    registers: [registry],
  });
  // Plain numbers on the request path, read when scraped.
  let inFlight = 0;
  let saved = 0;
  counterOf(
    registry,
    'order_graph_dataloader_loads_saved_total',
    'Loads the per-request DataLoaders served without an upstream call of their own.',
    () => saved,
  );
  gaugeOf(registry, 'order_graph_http_requests_in_flight', 'HTTP requests being handled.', () => inFlight);
  return {
    onRequest({ url, endResponse, fetchAPI }) {
      inFlight += 1;
      if (url.pathname !== path) return;
      return registry
        .metrics()
        .then((text) => endResponse(new fetchAPI.Response(text, { headers: { 'content-type': registry.contentType } })));
    },
    onResponse({ response, serverContext: { record } }) {
      inFlight -= 1;
      // A GraphQL request: its operation began, or it was refused with an error.
      if (!record || (!record.began && record.errorCodes.size === 0)) return;
      const outcome = response.status >= 400 ? 'refused' : record.errorCodes.size > 0 ? 'errors' : 'ok';
      requests.observe({ operationName: operationLabel(record.operationName), outcome }, (Date.now() - record.startedAt) / 1000);
      for (const [code, count] of record.errorCodes) errors.inc({ code, phase: phaseOf(code, record.began) }, count);
      saved += Math.max(0, record.loads.loads - record.loads.fetches);
    },
  };
}

/** Live streams and polls, read from the hub's counts when scraped (nothing to update on the live path), and whether Redis answers. */
function sharedStateMetrics(registry: Registry, { live, heldBytes, redisAvailable, history }: SharedStateSources): void {
  const gauge = (name: string, help: string, read: () => number) => gaugeOf(registry, name, help, read);
  gauge(
    'order_graph_held_bytes',
    'Bytes the requests in flight hold: upstream answers read and answers built (IN_FLIGHT_BYTES bounds them).',
    () => heldBytes().bytes,
  );
  gauge('order_graph_shedding', 'Whether new requests are refused (1) for want of room under IN_FLIGHT_BYTES, or not (0).', () =>
    heldBytes().shedding ? 1 : 0,
  );
  const counter = (name: string, help: string, read: (stats: LiveStats) => number) => counterOf(registry, name, help, () => read(live()));
  gauge('order_graph_live_streams', 'Live order-update streams open in this process.', () => live().watchers);
  gauge('order_graph_live_customers', 'Customers whose orders this process follows for its live streams.', () => live().customers);
  gauge(
    'order_graph_live_snapshot_bytes',
    "Estimated heap the watched customers' last polls take in this process (LIVE_SNAPSHOT_BYTES bounds it).",
    () => live().snapshotBytes,
  );
  counter('order_graph_live_polls_total', "Upstream polls of customers' order lists made by this process.", (stats) => stats.polls);
  counter(
    'order_graph_live_snapshots_refused_total',
    "Customers' polls refused for want of room under LIVE_SNAPSHOT_BYTES (their streams ended with RATE_LIMITED).",
    (stats) => stats.snapshotsRefused,
  );
  if (history) {
    gauge('order_graph_history_customers', 'Customers whose order history this process keeps (without Redis).', () => history().customers);
    gauge(
      'order_graph_history_bytes',
      'Estimated heap the order histories kept in this process take (HISTORY_BYTES bounds it).',
      () => history().bytes,
    );
  }
  if (redisAvailable)
    gauge('order_graph_redis_up', 'Whether Redis answered (1) or not (0): while 0, each process throttles, polls and caches alone.', () =>
      redisAvailable() ? 1 : 0,
    );
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
    plugin: requestMetrics(registry, path, knownOperations) as Plugin,
    registry,
    countConnectionCut: (reason) => connectionsCut.inc({ reason }),
    observeSharedState: (sources) => sharedStateMetrics(registry, sources),
    callObserver: upstreamCallMetrics(registry),
  };
}
