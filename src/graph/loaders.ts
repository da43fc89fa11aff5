// The per-request DataLoaders: one call per distinct operation and key per request.
import DataLoader from 'dataloader';
import { responsePathAsArray, type GraphQLResolveInfo } from 'graphql';
import type { CustomerLevelOperation, PerOrderOperation } from '../upstream/contract.js';
import type { Operations } from '../upstream/operations.js';

/** The one key of the caller's own resources (`/auth/me`, `/v2/order/user`). */
export const CALLER = 'caller';

/** A GraphQL field, as a trace names it: `Order.pickup` at `me.orders.0.pickup`. */
export interface FieldRef {
  type: string;
  field: string;
  path: string;
}

/** The field that asks for a load: its resolver's info, or a field named outright (a prefetch). */
export type LoadingField = GraphQLResolveInfo | FieldRef;

/** Traces one request's fields whose loads make upstream calls (the observability layer makes one per traced request). */
export interface FieldTracer {
  /** Whether the request's trace records spans: a request not sampled gets no field span. */
  records(): boolean;
  /** Starts the field's span in the request's trace; work run through it (the upstream call) hangs under that span. */
  start(field: FieldRef): { run<T>(work: () => T): T; end(error?: unknown): void };
}

/** How many loads a request's DataLoaders served, and how many upstream fetches that took (the metrics count the loads saved). */
export interface LoadStats {
  loads: number;
  fetches: number;
}

export interface Loader<K, V> {
  load(key: K, field: LoadingField): Promise<V>;
}

const fieldRef = (field: LoadingField): FieldRef =>
  'parentType' in field ? { type: field.parentType.name, field: field.fieldName, path: responsePathAsArray(field.path).join('.') } : field;

/**
 * One DataLoader over calls of one kind. The upstream has no batch endpoints, so a "batch" is
 * the distinct keys asked for in one tick, fetched in parallel. Each key's load settles with
 * its own call (its value, null, or its error), not when the batch's slowest call does: the
 * batch answers, in key order, each key's call itself, which the load follows. An error is
 * cached like a value, so a failed call is not repeated within the request. With a tracer,
 * the first field to ask for a key gets a span, and the key's fetch runs inside it even though
 * the loader batches.
 */
function createLoader<K, V>(
  fetch: (key: K) => Promise<V>,
  stats: LoadStats,
  tracer?: FieldTracer,
  cacheKeyFn?: (key: K) => string,
): Loader<K, V> {
  // The spans of the keys asked for, made on the first traced load only.
  let asked: Map<unknown, ReturnType<FieldTracer['start']>> | undefined;
  const cacheKey = cacheKeyFn ?? ((key: K) => key);
  // A call may also throw before it starts (no bearer): its load is rejected with that error.
  const call = (key: K): Promise<V> => {
    stats.fetches += 1;
    try {
      const span = asked?.get(cacheKey(key));
      return span ? span.run(() => fetch(key)) : fetch(key);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };
  // DataLoader resolves each key's load with what the batch gives for it: a promise, which the load adopts.
  const loader = new DataLoader<K, V, unknown>(
    (keys) => Promise.resolve(keys.map(call) as unknown as V[]),
    cacheKeyFn ? { cacheKeyFn } : {},
  );
  return {
    load(key, field) {
      stats.loads += 1;
      if (!tracer?.records() || asked?.has(cacheKey(key))) return loader.load(key);
      const span = tracer.start(fieldRef(field));
      (asked ??= new Map()).set(cacheKey(key), span);
      const loaded = loader.load(key);
      loaded.then(
        () => span.end(),
        (error: unknown) => span.end(error),
      );
      return loaded;
    },
  };
}

/** A call that backs fields (per-order or customer-level): its operation, with its parameters as the contract names them (`callParams`). */
export interface FieldCall {
  operation: PerOrderOperation | CustomerLevelOperation;
  params: Record<string, string>;
}
// The parameters are built in the contract's order, so equal ones make equal keys; named, as an optional one may be left out.
const fieldCallKey = ({ operation, params }: FieldCall) => `${operation} ${JSON.stringify(params)}`;

/**
 * The request's loaders, made per request from that request's operations (and so its bearer):
 * nothing they cache can reach another request. One for the caller's record, one for the
 * order list, and one for every call that backs fields, keyed by operation and parameters (the
 * Order and Customer fields name theirs through order-fields.ts). They count their loads in `stats`.
 */
export function createLoaders(operations: Operations, stats: LoadStats, tracer?: FieldTracer) {
  return {
    customerDetails: createLoader((_: typeof CALLER) => operations.customerDetails(), stats, tracer),
    orderDetails: createLoader((_: typeof CALLER) => operations.orderDetails(), stats, tracer),
    fieldCalls: createLoader(
      ({ operation, params }: FieldCall) => operations.fieldCall(operation, params) as Promise<unknown>,
      stats,
      tracer,
      fieldCallKey,
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
