// The per-request DataLoaders, one per upstream operation: one call per distinct key per request.
import DataLoader from 'dataloader';
import { responsePathAsArray, type GraphQLResolveInfo } from 'graphql';
import {
  CUSTOMER_LEVEL_OPERATIONS,
  PER_ORDER_OPERATIONS,
  type CustomerLevelOperation,
  type PerOrderOperation,
} from '../upstream/contract.js';
import type { Operations, PerOrderResponse } from '../upstream/operations.js';
import type { ResponseOf } from '../upstream/shapes.js';

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

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

const fieldRef = (field: LoadingField): FieldRef =>
  'parentType' in field ? { type: field.parentType.name, field: field.fieldName, path: responsePathAsArray(field.path).join('.') } : field;

/**
 * One DataLoader over one upstream operation. The upstream has no batch endpoints, so a
 * "batch" is the distinct keys asked for in one tick, fetched in parallel. Each key gets
 * its value, null, or its own Error, in key order; an Error is cached like a value, so a
 * failed call is not repeated within the request. With a tracer, the first field to ask for
 * a key gets a span, and the key's fetch runs inside it even though the loader batches.
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
  // Its value or its Error, never a rejection (a call may also throw before it starts: no bearer).
  const settle = (key: K): Promise<V | Error> => {
    stats.fetches += 1;
    try {
      const span = asked?.get(cacheKey(key));
      return (span ? span.run(() => fetch(key)) : fetch(key)).then(undefined, asError);
    } catch (error) {
      return Promise.resolve(asError(error));
    }
  };
  const loader = new DataLoader<K, V, unknown>((keys) => Promise.all(keys.map(settle)), cacheKeyFn ? { cacheKeyFn } : {});
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

/** A field call's key (per-order or customer-level): its parameters, as the contract names them (`callParams`). */
export type CallParams = Record<string, string>;
// Built in the contract's order, so equal parameters make equal keys; named, as an optional one may be left out.
const paramsKey = (params: CallParams) => JSON.stringify(params);

type PerOrderLoaders = { [O in PerOrderOperation]: Loader<CallParams, PerOrderResponse<O> | null> };
type CustomerLevelLoaders = { [O in CustomerLevelOperation]: Loader<CallParams, ResponseOf<O> | null> };

/** The calls that back fields (per-order and customer-level), each keyed by its parameters. */
const FIELD_OPERATIONS = [...PER_ORDER_OPERATIONS, ...CUSTOMER_LEVEL_OPERATIONS];

/**
 * One loader per upstream operation, named after it (the Order and Customer fields find theirs
 * through order-fields.ts), made per request from that request's operations (and so its bearer):
 * nothing they cache can reach another request. They count their loads in `stats`.
 */
export function createLoaders(operations: Operations, stats: LoadStats, tracer?: FieldTracer) {
  const loader = <K, V>(fetch: (key: K) => Promise<V>, cacheKeyFn?: (key: K) => string) => createLoader(fetch, stats, tracer, cacheKeyFn);
  const fieldCalls = Object.fromEntries(
    FIELD_OPERATIONS.map((operation) => [operation, loader((params: CallParams) => operations.fieldCall(operation, params), paramsKey)]),
  ) as PerOrderLoaders & CustomerLevelLoaders;
  return {
    customerDetails: loader((_: typeof CALLER) => operations.customerDetails()),
    orderDetails: loader((_: typeof CALLER) => operations.orderDetails()),
    ...fieldCalls,
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
