// The GraphQL clients frontends already use, each set up as its documentation shows, against a
// gateway on port 0: each gets the whole order exactly as the project's SDK does. What a
// client needs beyond its documented defaults (and the caller's bearer header) is named in its
// describe: nothing, but for Apollo's cache shared with the SDK's OrderSummary (Product merged).
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { __DEV__ } from '@apollo/client/utilities/environment';
import { cacheExchange, Client as UrqlClient, fetchExchange } from '@urql/core';
import { print } from 'graphql';
import { GraphQLClient } from 'graphql-request';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AVAILABLE_FROM,
  createOrderClient,
  OrderByIdDocument,
  OrderSummaryDocument,
  OrderUpdatesDocument,
  WholeOrderDeferredDocument,
  WholeOrderDocument,
  type OrderUpdatesSubscription,
  type WholeOrderQuery,
} from '../../src/client/index.js';
import { createSeedData } from '../../src/simulator/data.js';
import { ORDER_STAGES, ORDER_STATUSES, type OrderStage } from '../../src/upstream/contract.js';
import { demoCustomer, demoOrders } from '../helpers/demo.js';
import { startHarness, type Harness } from '../helpers/harness.js';

/** How often the live poll runs here: a change reaches the subscribers within a few of these. */
const POLL_MS = 200;
/** The demo customers whose whole orders the queries compare: two orders; one order with every part. */
const CUSTOMERS = ['two-orders@demo.test', 'ready@demo.test'];

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({ sockets: true, gateway: { live: { pollIntervalMs: POLL_MS } } });
});
afterAll(() => harness.close());

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** The project's SDK signed in as the demo customer: the reference every other client is compared with. */
async function signIn(username: string) {
  const sdk = createOrderClient({ endpoint: harness.endpoint });
  await sdk.login(username, demoCustomer(harness.simulator, username).password);
  const authorization = `Bearer ${sdk.tokens!.accessToken}`;
  return { sdk, authorization };
}

/** The whole order as the SDK gets it (client.test.ts tests the SDK itself). */
async function sdkWholeOrder(username: string) {
  const { sdk, authorization } = await signIn(username);
  const { data, errors } = await sdk.wholeOrder();
  expect(errors).toEqual([]);
  expect(data!.me!.orders!.length).toBeGreaterThan(0);
  return { expected: data!, authorization, sdk };
}

/**
 * The data without the `__typename` fields that a normalising cache (Apollo's, urql's) adds to
 * every selection set: what is left is what the document selected.
 */
function withoutTypename<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutTypename) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== '__typename')
      .map(([key, field]) => [key, withoutTypename(field)]),
  ) as T;
}

/** Every object of an answer that has a `__typename` and an id, as Apollo's cache keys it: `Order:o-1`. */
function identified(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(identified);
  if (value === null || typeof value !== 'object') return [];
  const { __typename, id } = value as { __typename?: unknown; id?: unknown };
  const own = typeof __typename === 'string' && typeof id === 'string' && id ? [`${__typename}:${id}`] : [];
  return [...own, ...Object.values(value).flatMap(identified)];
}

/** What console.warn and console.error are given while a test runs (Apollo's cache warnings go there). */
function consoleWarnings() {
  const warnings: unknown[][] = [];
  for (const method of ['warn', 'error'] as const) {
    const spy = vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void warnings.push(args));
    cleanups.push(() => spy.mockRestore());
  }
  return warnings;
}

/** Reads pushed values on demand: `next()` is the next one, failing after `timeoutMs`. */
function queue<T>() {
  const values: T[] = [];
  const waiting: Array<(value: T) => void> = [];
  return {
    push(value: T) {
      const resolve = waiting.shift();
      if (resolve) resolve(value);
      else values.push(value);
    },
    next(timeoutMs = 5000): Promise<T> {
      if (values.length) return Promise.resolve(values.shift()!);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`nothing within ${timeoutMs} ms`)), timeoutMs);
        waiting.push((value) => {
          clearTimeout(timer);
          resolve(value);
        });
      });
    },
  };
}

/** A subscription's result as any of the clients gives it: data, or errors, or an error. */
interface UpdateResult {
  data?: OrderUpdatesSubscription | null;
  errors?: readonly unknown[];
  error?: unknown;
}

/** An order update, checked free of errors, without the time it was observed (each subscriber's first state has its own). */
function update(result: UpdateResult) {
  expect(result.errors ?? []).toEqual([]);
  expect(result.error).toBeUndefined();
  const { observedAt, ...rest } = result.data!.orderUpdates;
  expect(Date.parse(observedAt)).not.toBeNaN();
  return rest;
}

/** Pushes every result of an async iterable into a queue, and a failure as a result with that error. */
function drain(results: AsyncIterable<UpdateResult>) {
  const events = queue<UpdateResult>();
  void (async () => {
    for await (const result of results) events.push(result);
  })().catch((error: unknown) => events.push({ error }));
  return events;
}

/**
 * The SDK watching the moving demo order (production@demo.test's, which `simulator.advance()`
 * moves one stage): its first state and each change, to compare a client's with.
 */
function watchMovingOrder(sdk: Awaited<ReturnType<typeof signIn>>['sdk']) {
  const abort = new AbortController();
  cleanups.push(() => abort.abort());
  return drain(sdk.watchOrders({ signal: abort.signal }));
}

/** Apollo Client 4 as its documentation sets it up: its defaults, the bearer, and the cache given. */
const apollo = (authorization: string, cache = new InMemoryCache()) =>
  new ApolloClient({ link: new HttpLink({ uri: harness.endpoint, headers: { authorization } }), cache });

/** urql with its default exchanges and the bearer. */
const urql = (authorization: string) =>
  new UrqlClient({
    url: harness.endpoint,
    exchanges: [cacheExchange, fetchExchange],
    fetchOptions: () => ({ headers: { authorization } }),
  });

describe('Apollo Client 4 with InMemoryCache (the whole order needs nothing beyond its defaults)', () => {
  beforeEach(() => {
    // Apollo warns only in development builds; vitest resolves the `development` condition, as
    // a frontend's dev server does. Without it the no-warning checks below would prove nothing.
    expect(__DEV__).toBe(true);
  });

  it.each(CUSTOMERS)('%s: the whole order, written to the cache and read back, is the SDK’s, with no cache warning', async (username) => {
    const warnings = consoleWarnings();
    const { expected, authorization } = await sdkWholeOrder(username);
    const cache = new InMemoryCache();
    const client = apollo(authorization, cache);

    const { data } = await client.query({ query: WholeOrderDocument });
    expect(withoutTypename(data)).toEqual(expected);
    // Every object with an id is its own cache entry, keyed by its type and that id; what has none is embedded.
    const orders = expected.me!.orders!;
    const entities = new Set(['ROOT_QUERY', ...identified(data)]);
    expect(entities.size).toBeGreaterThan(orders.length + 3);
    expect(Object.keys(cache.extract()).sort()).toEqual([...entities].sort());
    // The same whole order from the cache alone, after each order was fetched again on its own.
    for (const order of orders) {
      const { data: one } = await client.query({ query: OrderByIdDocument, variables: { id: order.id }, fetchPolicy: 'network-only' });
      expect(withoutTypename(one!.order)).toEqual(order);
    }
    const cached = await client.query({ query: WholeOrderDocument, fetchPolicy: 'cache-only' });
    expect(withoutTypename(cached.data)).toEqual(expected);
    expect(warnings).toEqual([]);
  });

  // The SDK's OrderSummary selects `product { model trim }`, WholeOrder the whole product: with
  // the default cache the summary replaces the order's product (an object without an id, so
  // embedded) with the smaller one, Apollo warns "Cache data may be lost when replacing the
  // product field of a Order object", and the whole order is no longer in the cache. The
  // documented remedy for an object its parent owns is `merge: true` on its type, used here.
  it('the order summary beside the whole order on one cache (with Product merged, as Apollo documents): both read back whole, no cache warning', async () => {
    const warnings = consoleWarnings();
    const { expected, authorization, sdk } = await sdkWholeOrder('two-orders@demo.test');
    const client = apollo(authorization, new InMemoryCache({ typePolicies: { Product: { merge: true } } }));
    await client.query({ query: WholeOrderDocument });
    const summary = await client.query({ query: OrderSummaryDocument, fetchPolicy: 'network-only' });
    expect(withoutTypename(summary.data)).toEqual((await sdk.orderSummary()).data);
    const cached = await client.query({ query: WholeOrderDocument, fetchPolicy: 'cache-only' });
    expect(withoutTypename(cached.data)).toEqual(expected);
    expect(warnings).toEqual([]);
  });
});

describe('Apollo Client 4 @defer over multipart (needs its documented incremental handler: nothing more)', () => {
  it.each(CUSTOMERS)(
    '%s: the deferred whole order arrives in parts; the final data is the whole order’s, with no cache warning',
    async (username) => {
      const warnings = consoleWarnings();
      const { expected, authorization } = await sdkWholeOrder(username);
      const fetches = vi.spyOn(globalThis, 'fetch');
      cleanups.push(() => fetches.mockRestore());
      const client = new ApolloClient({
        link: new HttpLink({ uri: harness.endpoint, headers: { authorization } }),
        cache: new InMemoryCache(),
        incrementalHandler: new Defer20220824Handler(),
      });

      const results = queue<ApolloClient.QueryResult<unknown> & { dataState: string }>();
      const seen: Array<{ dataState: string; data: unknown }> = [];
      const subscription = client.watchQuery({ query: WholeOrderDeferredDocument }).subscribe((result) => results.push(result));
      cleanups.push(() => subscription.unsubscribe());
      for (let result = await results.next(); ; result = await results.next()) {
        seen.push({ dataState: result.dataState, data: result.data });
        if (result.dataState === 'complete') break;
      }

      // One request, answered as multipart: the handler merged the parts, not the server.
      expect(fetches).toHaveBeenCalledOnce();
      expect(((await fetches.mock.results[0]!.value) as Response).headers.get('content-type')).toMatch(/^multipart\/mixed/);
      // The first data came before the per-order parts: the customer and the order records only.
      const streaming = seen.filter((result) => result.dataState === 'streaming');
      expect(streaming.length).toBeGreaterThan(0);
      const first = withoutTypename(streaming[0]!.data as WholeOrderQuery);
      expect(first.me!.orders!.every((order) => !('vehicle' in order) && !('payments' in order))).toBe(true);
      expect(withoutTypename(seen.at(-1)!.data)).toEqual(expected);
      expect(warnings).toEqual([]);
    },
  );
});

describe('graphql-sse client, distinct connections mode (needs nothing beyond its defaults and an auth header)', () => {
  it('orderUpdates: the first state, then the change when the order moves, as the SDK sees them', async () => {
    const { sdk, authorization } = await signIn('production@demo.test');
    const reference = watchMovingOrder(sdk);
    const client = createSseClient({ url: harness.endpoint, headers: { authorization } });
    cleanups.push(() => client.dispose());
    const iterator = client.iterate<OrderUpdatesSubscription>({ query: print(OrderUpdatesDocument) });
    cleanups.push(() => iterator.return?.());
    const events = drain(iterator);

    const first = update(await events.next());
    expect(first.changes).toEqual([]);
    expect(first).toEqual(update(await reference.next()));
    // The order record in the event is the whole order's (whose pickup is not available yet).
    expect((await sdk.wholeOrder()).data!.me!.orders![0]).toMatchObject(first.order);

    const move = harness.simulator.advance();
    const changed = update(await events.next());
    expect(changed.order).toMatchObject({ id: move.orderId, rawStatus: move.to, updatedAt: move.at });
    expect(changed.changes).toContainEqual({ field: 'rawStatus', from: move.from, to: move.to });
    expect(changed).toEqual(update(await reference.next()));
  });
});

describe('urql with its default exchanges (needs nothing beyond its defaults and an auth header)', () => {
  it.each(CUSTOMERS)('%s: the whole order (sent as POST: its document is longer than urql’s URL limit for GET)', async (username) => {
    const { expected, authorization } = await sdkWholeOrder(username);
    const fetches = vi.spyOn(globalThis, 'fetch');
    cleanups.push(() => fetches.mockRestore());
    const { data, error } = await urql(authorization).query(WholeOrderDocument, {}).toPromise();
    expect(fetches.mock.calls.map(([, init]) => init?.method)).toEqual(['POST']);
    expect(error).toBeUndefined();
    expect(withoutTypename(data)).toEqual(expected);
  });

  it('a query within the URL limit goes as GET, urql’s default, and gets what the SDK gets', async () => {
    const { sdk, authorization } = await signIn('two-orders@demo.test');
    const fetches = vi.spyOn(globalThis, 'fetch');
    cleanups.push(() => fetches.mockRestore());
    const { data, error } = await urql(authorization).query(OrderSummaryDocument, {}).toPromise();
    expect(fetches.mock.calls.map(([, init]) => init?.method)).toEqual(['GET']);
    expect(error).toBeUndefined();
    expect(withoutTypename(data)).toEqual((await sdk.orderSummary()).data);
  });
});

describe('Apollo Client 4 subscriptions through GraphQLWsLink (needs nothing beyond its defaults)', () => {
  it('orderUpdates over graphql-ws with the documented split link: the first state, then the change, as the SDK sees them', async () => {
    const warnings = consoleWarnings();
    const { sdk, authorization } = await signIn('production@demo.test');
    const reference = watchMovingOrder(sdk);
    const ws = createWsClient({ url: harness.endpoint.replace(/^http/, 'ws'), connectionParams: { authorization } });
    cleanups.push(() => ws.dispose());
    const link = ApolloLink.split(
      ({ query }) => {
        const definition = getMainDefinition(query);
        return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
      },
      new GraphQLWsLink(ws),
      new HttpLink({ uri: harness.endpoint, headers: { authorization } }),
    );
    const client = new ApolloClient({ link, cache: new InMemoryCache() });
    const events = queue<UpdateResult>();
    const subscription = client.subscribe({ query: OrderUpdatesDocument }).subscribe({
      next: (result) => events.push({ ...result, data: withoutTypename(result.data) }),
      error: (error: unknown) => events.push({ error }),
    });
    cleanups.push(() => subscription.unsubscribe());

    const first = update(await events.next());
    expect(first.changes).toEqual([]);
    expect(first).toEqual(update(await reference.next()));
    const move = harness.simulator.advance();
    const changed = update(await events.next());
    expect(changed.changes).toContainEqual({ field: 'rawStatus', from: move.from, to: move.to });
    expect(changed).toEqual(update(await reference.next()));
    expect(warnings).toEqual([]);
  });
});

/** Every demo customer: each stage the seed holds, a cancelled order, two orders, none. */
const EVERY_CUSTOMER = createSeedData().users.map(({ username }) => username);

/**
 * What `Order.availability` must say at a status, the rule written here rather than taken from
 * the gateway (its canHaveValue and hasReached): a part is available once the order's stage is
 * at or past the part's in ORDER_STAGES, never when cancelled, and always at a status the
 * contract does not name (only the service can place it).
 */
function availabilityAt(status: string) {
  const position = ORDER_STAGES.indexOf(status as OrderStage);
  return Object.entries(AVAILABLE_FROM).map(([field, from]) => ({
    part: field.toUpperCase(),
    from,
    available: status !== 'CANCELLED' && (position < 0 || position >= ORDER_STAGES.indexOf(from)),
  }));
}

/**
 * The whole order through each client as a frontend sets it up, nothing beyond its defaults
 * and the bearer: Apollo Client 4 (`errorPolicy: 'none'`: any entry in `errors` rejects the
 * query with no data), urql (any entry in `errors` is its `error`), graphql-request (throws
 * on any entry in `errors`). Each must give the SDK's data.
 */
async function throughEveryClient(authorization: string, expected: WholeOrderQuery) {
  expect(withoutTypename((await apollo(authorization).query({ query: WholeOrderDocument })).data)).toEqual(expected);
  const { data, error } = await urql(authorization).query(WholeOrderDocument, {}).toPromise();
  expect(error).toBeUndefined();
  expect(withoutTypename(data)).toEqual(expected);
  expect(await new GraphQLClient(harness.endpoint, { headers: { authorization } }).request(WholeOrderDocument)).toEqual(expected);
}

describe('a stage not reached is data: the whole order through every client’s defaults, for every customer', () => {
  it.each(EVERY_CUSTOMER)(
    '%s: data and no error from the SDK, Apollo Client, urql and graphql-request; each order’s availability is its stage’s',
    async (username) => {
      const { sdk, authorization } = await signIn(username);
      const { data, errors } = await sdk.wholeOrder();
      expect(errors).toEqual([]);
      const orders = demoOrders(harness.simulator, username);
      expect(data!.me!.orders!.map((order) => order.availability)).toEqual(orders.map((order) => availabilityAt(order.status)));
      await throughEveryClient(authorization, data!);
    },
  );

  it('one order taken through every status (and one this API does not know): the same at each, a part present only when available', async () => {
    const { sdk, authorization } = await signIn('ready@demo.test');
    const [order] = demoOrders(harness.simulator, 'ready@demo.test');
    const original = order!.status;
    cleanups.push(() => (order!.status = original));
    for (const status of [...ORDER_STATUSES, 'ON_HOLD']) {
      order!.status = status;
      const { data, errors } = await sdk.wholeOrder();
      expect(errors, status).toEqual([]);
      const answered = data!.me!.orders![0]!;
      expect(answered.availability, status).toEqual(availabilityAt(status));
      // At a status the API names, present exactly when available. At one it does not, every
      // part may come (available), and the simulator, which cannot place that status either,
      // refuses each (availability.test.ts has a service that answers).
      const named = (ORDER_STATUSES as readonly string[]).includes(status);
      for (const { part, available } of answered.availability)
        expect(answered[part.toLowerCase() as 'vehicle' | 'pickup' | 'estimate'] !== null, `${status} ${part}`).toBe(named && available);
      await throughEveryClient(authorization, data!);
    }
  });

  it('a call that really fails is still null with its error, before its stage as after it', async () => {
    harness.simulator.setFault('nearestPickupCenter', '500');
    cleanups.push(() => harness.simulator.clearFaults());
    for (const username of ['production@demo.test', 'ready@demo.test']) {
      const { sdk } = await signIn(username);
      const { data, errors } = await sdk.wholeOrder();
      expect(data!.me!.orders![0]!.pickup).toBeNull();
      expect(errors.map((error) => [error.path, error.extensions?.code])).toEqual([[['me', 'orders', 0, 'pickup'], 'UPSTREAM_ERROR']]);
    }
  });
});

describe('the project’s SDK', () => {
  // Its whole order, deferred whole order and live watch are tested in client.test.ts,
  // defer.test.ts and live.test.ts; here it is the reference every client above is compared with.
  it('is the reference: its whole order has every part of each order', async () => {
    const { expected } = await sdkWholeOrder('ready@demo.test');
    const [order] = expected.me!.orders!;
    for (const part of ['vehicle', 'pickup', 'estimate', 'shippingAddress', 'payments', 'tradeIn'] as const)
      expect(order![part]).toBeTruthy();
  });
});
