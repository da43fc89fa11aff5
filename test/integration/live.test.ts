// Live order updates over GraphQL over SSE, against the simulator whose orders the tests
// change: one poll per customer however many streams, only changes pushed, each stream its
// own caller's, and streams that end when their token does or the gateway stops. Then, against
// a stub upstream with a 2,000-order customer, what a stream may hold: the events of a reader
// that stops reading, and the snapshots' bytes (LIVE_SNAPSHOT_BYTES). (The budgets of a
// stream's calls are in budgets.test.ts.)
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse } from 'graphql';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { OrderUpdatesDocument } from '../../src/client/__generated__/graphql.js';
import { createOrderClient, OrderClientError, type OrderResult } from '../../src/client/index.js';
import { createStreamTransport } from '../../src/client/streams.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { AVAILABLE_FROM, ORDER_FIELD_OPERATIONS } from '../../src/graph/order-fields.js';
import { isActiveAt, ORDER_STAGES } from '../../src/upstream/contract.js';
import type { Order } from '../../src/upstream/models.js';
import { demoCustomer, demoOrders, demoToken } from '../helpers/demo.js';
import { inProcessGateway, startGateway, type TestGatewayConfig } from '../helpers/harness.js';
import { capturedLogLines } from '../helpers/log-capture.js';
import { createUpstreamProxy } from '../helpers/upstream-proxy.js';
import { overIntervals, until } from '../helpers/intervals.js';
import {
  expectOnlyPollFailures,
  liveCodes,
  manyOrdersUpstream,
  SMALL_UPDATES,
  subscribeSse,
  type ManyOrdersUpstream,
} from '../helpers/many-orders.js';
import { leastSelection } from '../helpers/whole-order.js';

const POLL_MS = 250;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(gateway: TestGatewayConfig = {}) {
  const simulator = createSimulator({ latencyMs: 0 });
  cleanups.push(simulator.close);
  const started = inProcessGateway({ upstream: simulator, live: { pollIntervalMs: POLL_MS }, ...gateway });
  cleanups.push(started.close);
  const customer = (username: string) => demoCustomer(simulator, username);
  /** An SDK client signed in as the demo customer. */
  const signIn = async (username: string) => {
    const client = createOrderClient({ endpoint: started.endpoint, fetch: started.fetch });
    await client.login(username, customer(username).password);
    return client;
  };
  /** A raw stream of a document as `token`'s caller: its results until the gateway ends it. */
  const subscribe = <T, V extends Record<string, unknown>>(token: string, document: TypedDocumentNode<T, V>, variables?: V) => {
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    const stream = createStreamTransport({ endpoint: started.endpoint, fetch: started.fetch, accessToken: () => token })(
      document,
      variables,
      abort.signal,
    );
    return { results: reader(stream), stop: () => abort.abort() };
  };
  return { simulator, gateway: started, customer, signIn, subscribe };
}

/** Reads a stream on demand: `next()` is its next result, `ended()` true once it finished. */
function reader<T>(stream: AsyncGenerator<OrderResult<T>>) {
  const iterator = stream[Symbol.asyncIterator]();
  let done = false;
  return {
    async next(timeoutMs = 5000): Promise<OrderResult<T>> {
      const result = await Promise.race([
        iterator.next(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no result within ${timeoutMs} ms`)), timeoutMs)),
      ]);
      if (result.done) {
        done = true;
        throw new Error('the stream ended');
      }
      return result.value;
    },
    /** Resolves true when the stream ends (within the timeout) without another result. */
    async ends(timeoutMs = 5000): Promise<boolean> {
      if (done) return true;
      const result = await Promise.race([
        iterator.next(),
        new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs)),
      ]);
      return result !== 'timeout' && result.done === true;
    },
  };
}

const pollsAfter = (simulator: Simulator, since: number) =>
  simulator.requestLog.filter((entry) => entry.operation === 'orderDetails' && entry.at >= since).length;
/** Resolves once the condition holds (checked every 20 ms), failing after the timeout. */

const codeOf = (result: OrderResult<unknown>) => result.errors[0]?.extensions?.code;

/** Changes the order record as the upstream would when the order moves on. */
function advance(order: Order, status: string) {
  order.status = status;
  order.updatedAt = new Date(Date.parse(order.updatedAt ?? '2026-01-01T00:00:00Z') + 60_000).toISOString();
}

describe('orderUpdates', () => {
  it('first the current state of each order, then a change from the first poll after it, with each changed field', async () => {
    const { simulator, signIn } = await setup();
    const client = await signIn('two-orders@demo.test');
    const orders = demoOrders(simulator, 'two-orders@demo.test');
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    const events = reader(client.watchOrders({ signal: abort.signal, minIntervalMs: POLL_MS }));

    const first = [await events.next(), await events.next()];
    expect(first.map((event) => event.errors)).toEqual([[], []]);
    expect(first.map((event) => event.data!.orderUpdates.order.id).sort()).toEqual(orders.map((order) => order.id).sort());
    expect(first.map((event) => event.data!.orderUpdates.changes)).toEqual([[], []]);

    const moving = orders.find((order) => order.status === 'IN_TRANSIT')!;
    const before = moving.updatedAt;
    const changedAt = Date.now();
    advance(moving, 'DELIVERED');
    const event = await events.next(POLL_MS * 4);

    expect(event.errors).toEqual([]);
    const update = event.data!.orderUpdates;
    expect(update.order).toMatchObject({ id: moving.id, status: 'DELIVERED', rawStatus: 'DELIVERED' });
    expect(update.changes).toEqual([
      { field: 'status', from: 'IN_TRANSIT', to: 'DELIVERED' },
      { field: 'rawStatus', from: 'IN_TRANSIT', to: 'DELIVERED' },
      { field: 'updatedAt', from: new Date(before!).toISOString(), to: moving.updatedAt },
    ]);
    expect(Date.parse(update.observedAt)).toBeGreaterThanOrEqual(changedAt - 1000);
    // The change came with the first poll after it (observed before any second poll began).
    const pollsSince = simulator.requestLog
      .filter((entry) => entry.operation === 'orderDetails' && entry.at >= changedAt)
      .map((entry) => entry.at);
    expect(pollsSince.length).toBeGreaterThanOrEqual(1);
    expect(Date.parse(update.observedAt)).toBeLessThan(pollsSince[1] ?? Infinity);
  });

  it('the rest of an event resolves afresh: a subscriber asking for the vehicle gets it with each event', async () => {
    const { simulator, signIn, subscribe } = await setup();
    const client = await signIn('ready@demo.test');
    const [order] = demoOrders(simulator, 'ready@demo.test');
    const document: TypedDocumentNode<
      { orderUpdates: { changes: { field: string }[]; order: { id: string; vehicle: { vin: string } | null } } },
      { id: string }
    > = parse('subscription ($id: ID) { orderUpdates(orderId: $id) { changes { field } order { id vehicle { vin } } } }');
    const vehicleCalls = () => simulator.requestLog.filter((entry) => entry.operation === 'vehicleProductionDetails').length;
    const events = subscribe(client.tokens!.accessToken, document, { id: order!.id }).results;

    const first = await events.next();
    expect(first.data!.orderUpdates.order).toEqual({ id: order!.id, vehicle: { vin: expect.stringMatching(/^\w{17}$/) } });
    expect(vehicleCalls()).toBe(1);
    const vehicle = simulator.data.vehicleDetails.find((details) => details.orderId === order!.id)!;
    vehicle.vin = '5YJ3E1EA0PF000001';
    advance(order!, 'IN_TRANSIT');
    const second = await events.next(POLL_MS * 4);
    expect(second.data!.orderUpdates.order.vehicle).toEqual({ vin: '5YJ3E1EA0PF000001' });
    expect(vehicleCalls()).toBe(2);
  });

  it('a stage not reached is no error in an event: from RESERVED through every stage, each event has no error, its gated parts null until their stage and its availability saying so', async () => {
    const { simulator, signIn, subscribe } = await setup();
    // The ready customer's order (which has a vehicle, a pickup centre and an estimate, each
    // answered from its stage on), taken back to the first stage.
    const client = await signIn('ready@demo.test');
    const [order] = demoOrders(simulator, 'ready@demo.test');
    advance(order!, ORDER_STAGES[0]);
    type Event = {
      orderUpdates: { order: { status: string; availability: { part: string; available: boolean }[] } & Record<string, unknown> };
    };
    // Every stage-gated part (the field table's), each asking for the least that makes its call.
    const gated = leastSelection(Object.keys(AVAILABLE_FROM));
    const document: TypedDocumentNode<Event, { id: string }> = parse(
      `subscription ($id: ID) { orderUpdates(orderId: $id) { order { status availability { part available } ${gated} } } }`,
    );
    const events = subscribe(client.tokens!.accessToken, document, { id: order!.id }).results;

    for (const [index, stage] of ORDER_STAGES.entries()) {
      if (index > 0) advance(order!, stage);
      const event = await events.next(POLL_MS * 4);
      expect(event.errors, stage).toEqual([]);
      const { status, availability, ...parts } = event.data!.orderUpdates.order;
      expect(status).toBe(stage);
      expect(availability, stage).toEqual(
        (Object.keys(AVAILABLE_FROM) as (keyof typeof AVAILABLE_FROM)[]).map((field) => ({
          part: field.toUpperCase(),
          available: isActiveAt(ORDER_FIELD_OPERATIONS[field], stage),
        })),
      );
      // The ready customer's order has every part once its stage comes: present exactly when available.
      for (const { part, available } of availability) expect(parts[part.toLowerCase()] !== null, `${stage} ${part}`).toBe(available);
    }
  });

  it('50 subscribers of one customer: one upstream poll per interval, each subscriber verified once', async () => {
    const { simulator, signIn, subscribe } = await setup();
    const client = await signIn('ready@demo.test');
    simulator.clearLog();
    const streams = Array.from({ length: 50 }, () => subscribe(client.tokens!.accessToken, OrderUpdatesDocument, {}).results);
    const firsts = await Promise.all(streams.map((events) => events.next()));
    expect(firsts.every((event) => event.errors.length === 0 && event.data!.orderUpdates.changes.length === 0)).toBe(true);

    const { count: polls, intervals } = await overIntervals(() => pollsAfter(simulator, 0), POLL_MS, 8);
    // About one poll per interval (one more or less by where the window falls), not 50 per interval.
    expect(polls).toBeGreaterThanOrEqual(intervals / 2);
    expect(polls).toBeLessThanOrEqual(intervals + 2);
    // Each subscriber verified once as it subscribes; after that one token check per round at
    // most (the 50 share a token), made only when a poll came late on a loaded machine: never 50 a round.
    const checks = simulator.requestLog.filter((entry) => entry.operation === 'customerDetails').length;
    expect(checks).toBeGreaterThanOrEqual(50);
    expect(checks).toBeLessThanOrEqual(50 + intervals);
  });

  it('polling stops when the last stream ends', async () => {
    const { simulator, signIn, subscribe } = await setup();
    const client = await signIn('ready@demo.test');
    const streams = [
      subscribe(client.tokens!.accessToken, OrderUpdatesDocument, {}),
      subscribe(client.tokens!.accessToken, OrderUpdatesDocument, {}),
    ];
    await Promise.all(streams.map((stream) => stream.results.next()));
    for (const stream of streams) stream.stop();
    // The ends reach the gateway when a loaded machine gets to them: first two intervals without a poll,
    for (let round = 0; round < 40; round++) {
      const from = Date.now();
      await new Promise((resolve) => setTimeout(resolve, POLL_MS * 2));
      if (pollsAfter(simulator, from) === 0) break;
    }
    // then none in four more.
    const since = Date.now();
    await new Promise((resolve) => setTimeout(resolve, POLL_MS * 4));
    expect(pollsAfter(simulator, since)).toBe(0);
  });

  it("a forged `sub` gets nothing: UNAUTHENTICATED from the upstream's check, no poll, and no event of that customer", async () => {
    const { simulator, signIn, subscribe, customer } = await setup();
    const victim = await signIn('ready@demo.test');
    const watching = subscribe(victim.tokens!.accessToken, OrderUpdatesDocument, {}).results;
    await watching.next();

    const forged = await new SignJWT({ sub: customer('ready@demo.test').userId })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not-the-simulator-secret-0123456789'));
    const attacker = subscribe(forged, OrderUpdatesDocument, {}).results;
    const refused = await attacker.next();
    expect(refused.data).toBeNull();
    expect(refused.errors[0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED', operation: 'customerDetails', upstreamStatus: 401 });
    expect(await attacker.ends()).toBe(true);
    // The customer's own poll goes on with the customer's token only.
    advance(demoOrders(simulator, 'ready@demo.test')[0]!, 'DELIVERED');
    expect((await watching.next(POLL_MS * 4)).data!.orderUpdates.changes[0]).toMatchObject({ field: 'status', to: 'DELIVERED' });
    expect(simulator.requestLog.filter((entry) => entry.bearer === forged).map((entry) => entry.operation)).toEqual(['customerDetails']);
  });

  it('a token that expires ends its stream with UNAUTHENTICATED; the SDK renews the tokens and watches on', async () => {
    const { simulator, signIn, subscribe, gateway } = await setup();
    const shortLived = await demoToken(simulator, 'ready@demo.test', { expiresInSeconds: 2 });
    const raw = subscribe(shortLived, OrderUpdatesDocument, {}).results;
    expect((await raw.next()).errors).toEqual([]);
    const ended = await raw.next(4000);
    expect(codeOf(ended)).toBe('UNAUTHENTICATED');
    expect(ended.errors[0]!.message).toMatch(/expired/);
    expect(await raw.ends()).toBe(true);

    // The SDK, holding a refresh token beside the short-lived access token.
    const signedIn = await signIn('ready@demo.test');
    const client = createOrderClient({
      endpoint: gateway.endpoint,
      fetch: gateway.fetch,
      tokens: { ...signedIn.tokens!, accessToken: await demoToken(simulator, 'ready@demo.test', { expiresInSeconds: 2 }) },
    });
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    const events = reader(client.watchOrders({ signal: abort.signal, minIntervalMs: POLL_MS }));
    await events.next();
    // Reading on: the stream ends when the token expires, the SDK renews it and subscribes again.
    const next = events.next(6000);
    await until(() => simulator.requestLog.some((entry) => entry.operation === 'refreshTokens'));
    const resubscribed = simulator.requestLog.length;
    await until(() => simulator.requestLog.slice(resubscribed).some((entry) => entry.operation === 'orderDetails'));
    advance(demoOrders(simulator, 'ready@demo.test')[0]!, 'DELIVERED');
    // The state sent again on subscribing again is not repeated: the next event is the change.
    expect((await next).data!.orderUpdates.changes[0]).toMatchObject({ field: 'status', to: 'DELIVERED' });
  });

  it('a revoked token beside a fresh one of the same customer: the poll goes on with the fresh one, and the revoked stream ends (UNAUTHENTICATED) within an interval, before the next change', async () => {
    const { simulator, subscribe } = await setup();
    const revoked = await demoToken(simulator, 'ready@demo.test', { expiresInSeconds: 3600 });
    const first = subscribe(revoked, OrderUpdatesDocument, {}).results;
    expect((await first.next()).errors).toEqual([]);
    await until(() => pollsAfter(simulator, 0) >= 2);
    // The owner subscribes again between two polls (another tab), with a token that lasts longer: the polls move to it.
    const fresh = await demoToken(simulator, 'ready@demo.test');
    const second = subscribe(fresh, OrderUpdatesDocument, {}).results;
    expect((await second.next()).errors).toEqual([]);
    const polls = pollsAfter(simulator, 0);
    await until(() => pollsAfter(simulator, 0) >= polls + 1);
    simulator.revokeAccessToken(revoked);
    const revokedAt = Date.now();

    const ended = await first.next(POLL_MS * 4);
    expect(codeOf(ended)).toBe('UNAUTHENTICATED');
    expect(await first.ends()).toBe(true);
    console.info(`a revoked token's stream ended ${Date.now() - revokedAt} ms after the revocation (poll interval ${POLL_MS} ms)`);
    // The check was the revoked token's own, once: the polls never used it again.
    const withRevoked = simulator.requestLog.filter((entry) => entry.bearer === revoked && entry.at >= revokedAt);
    expect(withRevoked.map((entry) => [entry.operation, entry.status])).toEqual([['customerDetails', 401]]);

    advance(demoOrders(simulator, 'ready@demo.test')[0]!, 'DELIVERED');
    expect((await second.next(POLL_MS * 4)).data!.orderUpdates.changes[0]).toMatchObject({ field: 'status', to: 'DELIVERED' });
    // Once the polls are made with the fresh token, they are its check: none of its own.
    expect(
      simulator.requestLog.filter((entry) => entry.bearer === fresh && entry.operation === 'customerDetails' && entry.at >= revokedAt),
    ).toEqual([]);
  });

  // The poll interval is far longer than the test's steps: the owner subscribes, the token is
  // revoked and the order changes between two polls (as in production's 30 s), and each step
  // waits for what it needs (a poll in the upstream's log, an event), never for a time.
  describe('a poll interval longer than the steps', () => {
    const SLOW_POLL_MS = 2000;
    /** The calls to `/auth/me` logged from `from` on: whose token (by name) and the upstream's status. */
    const checks = (simulator: Simulator, from: number, names: Record<string, string>) =>
      simulator.requestLog
        .slice(from)
        .filter((entry) => entry.operation === 'customerDetails')
        .map((entry) => [names[entry.bearer!] ?? 'another', entry.status]);
    /** A stream on a token that lasts an hour (its first poll is made with it), then the owner's on one that lasts longer (the next polls are). */
    async function twoTokens() {
      const { simulator, subscribe } = await setup({ live: { pollIntervalMs: SLOW_POLL_MS } });
      const tokenA = await demoToken(simulator, 'ready@demo.test', { expiresInSeconds: 3600 });
      const a = subscribe(tokenA, OrderUpdatesDocument, {}).results;
      expect((await a.next()).errors).toEqual([]);
      const tokenB = await demoToken(simulator, 'ready@demo.test');
      const b = subscribe(tokenB, OrderUpdatesDocument, {}).results;
      expect((await b.next()).errors).toEqual([]);
      // One poll so far (with A), and each subscription's own check: nothing more for either first state.
      expect(pollsAfter(simulator, 0)).toBe(1);
      const names = { [tokenA]: 'A', [tokenB]: 'B' };
      expect(checks(simulator, 0, names)).toEqual([
        ['A', 200],
        ['B', 200],
      ]);
      return { simulator, tokenA, a, b, names, order: demoOrders(simulator, 'ready@demo.test')[0]! };
    }

    it('the owner subscribes between two polls, the first token is revoked and the order changes: at the next poll (made with the owner’s token) the revoked stream ends with UNAUTHENTICATED and nothing of the change, the owner’s gets it; one /auth/me, the revoked token’s', async () => {
      const { simulator, tokenA, a, b, names, order } = await twoTokens();
      simulator.revokeAccessToken(tokenA);
      const revokedAt = simulator.requestLog.length;
      advance(order, 'DELIVERED');
      expect(pollsAfter(simulator, 0)).toBe(1);

      const changed = await b.next(SLOW_POLL_MS * 4);
      expect(changed.data!.orderUpdates.changes[0]).toEqual({ field: 'status', from: 'READY_FOR_PICKUP', to: 'DELIVERED' });
      const ended = await a.next(SLOW_POLL_MS * 4);
      console.info(
        `a revoked token's stream, the owner subscribed between two polls: its next event after the change: ${codeOf(ended) ?? `the change (${JSON.stringify(ended.data?.orderUpdates.changes[0])})`}; /auth/me calls since the revocation: ${JSON.stringify(checks(simulator, revokedAt, names))}`,
      );
      expect(ended.data).toBeNull();
      expect(codeOf(ended)).toBe('UNAUTHENTICATED');
      expect(await a.ends()).toBe(true);
      // The second poll was the owner's token's check; the revoked token had one of its own.
      expect(
        simulator.requestLog
          .slice(revokedAt)
          .filter((entry) => entry.operation === 'orderDetails')
          .map((entry) => names[entry.bearer!]),
      ).toEqual(['B']);
      // One check of the revoked token (a round may check the owner's too, as the machine's timing falls: accepted).
      const since = checks(simulator, revokedAt, names);
      expect(since.filter(([name]) => name === 'A')).toEqual([['A', 401]]);
      expect(since.filter(([name]) => name !== 'A').every(([name, status]) => name === 'B' && status === 200)).toBe(true);
    });

    it('a token check the upstream cannot answer (500): its stream gets nothing of the change and stays open; once a later check passes it gets the change, from the state it had', async () => {
      const { simulator, a, b, names, order } = await twoTokens();
      simulator.setFault('customerDetails', '500');
      const faultAt = simulator.requestLog.length;
      advance(order, 'DELIVERED');
      expect(pollsAfter(simulator, 0)).toBe(1);

      expect((await b.next(SLOW_POLL_MS * 4)).data!.orderUpdates.changes[0]).toMatchObject({ field: 'status', to: 'DELIVERED' });
      const ofA = (from: number) => checks(simulator, from, names).filter(([name]) => name === 'A');
      await until(() => ofA(faultAt).length > 0, SLOW_POLL_MS * 4);
      // A's token checked at once when the change was held (and again by a round, as the machine's
      // timing falls): never accepted. A round may check the owner's too (a loaded machine's poll
      // comes a little later than the round): as the earlier test accepts, nothing else.
      const refusedChecks = checks(simulator, faultAt, names);
      expect(refusedChecks.every(([name, status]) => (name === 'A' && status === 500) || name === 'B')).toBe(true);
      simulator.clearFaults();
      const clearedAt = simulator.requestLog.length;

      const event = await a.next(SLOW_POLL_MS * 4);
      // It came once A's token passed a check made after the fault, not before.
      const checkedWhenRead = checks(simulator, clearedAt, names);
      console.info(
        `a stream whose token check failed (500): the change reached it with ${JSON.stringify(checkedWhenRead)} logged since the fault cleared`,
      );
      expect(checkedWhenRead.filter(([name, status]) => name === 'A' && status === 200)).toEqual([['A', 200]]);
      expect(checkedWhenRead.every(([name]) => name === 'A' || name === 'B')).toBe(true);
      expect(event.errors).toEqual([]);
      expect(event.data!.orderUpdates.changes[0]).toEqual({ field: 'status', from: 'READY_FOR_PICKUP', to: 'DELIVERED' });
      const all = ofA(faultAt);
      expect(all.at(-1)).toEqual(['A', 200]);
      expect(all.slice(0, -1).every(([, status]) => status === 500)).toBe(true);
    });
  });

  it('a poll whose order list carries a field nested 5,000 arrays deep: the stream stays open, that field alone is UPSTREAM_ERROR, and it is no change', async () => {
    const simulator = createSimulator({ latencyMs: 0 });
    cleanups.push(simulator.close);
    // The upstream sends the order list's createdAt nested 5,000 arrays deep while `hostile` is set.
    let hostile = false;
    const upstream = createUpstreamProxy(simulator, {
      rewrite: (operation, _request, text) =>
        hostile && operation === 'orderDetails'
          ? text.replace(/"createdAt":"[^"]*"/g, `"createdAt":${'['.repeat(5000)}${']'.repeat(5000)}`)
          : text,
    });
    cleanups.push(upstream.close);
    const gateway = inProcessGateway({ upstream, live: { pollIntervalMs: POLL_MS } });
    cleanups.push(gateway.close);
    const query = parse(
      'subscription { orderUpdates { changes { field from to } order { id status createdAt updatedAt } } }',
    ) as TypedDocumentNode<{ orderUpdates: { changes: { field: string }[]; order: Record<string, unknown> } }, Record<string, never>>;
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    const token = await demoToken(simulator, 'ready@demo.test');
    const stream = reader(
      createStreamTransport({ endpoint: gateway.endpoint, fetch: gateway.fetch, accessToken: () => token })(query, {}, abort.signal),
    );
    expect((await stream.next()).errors).toEqual([]);
    const [order] = demoOrders(simulator, 'ready@demo.test');
    hostile = true;
    advance(order!, 'DELIVERED');
    const event = await stream.next(POLL_MS * 4);
    expect(event.errors.map((error) => [error.path?.join('.'), error.extensions?.code])).toEqual([
      ['orderUpdates.order.createdAt', 'UPSTREAM_ERROR'],
    ]);
    expect(event.data!.orderUpdates.order).toMatchObject({ status: 'DELIVERED', createdAt: null });
    expect(event.data!.orderUpdates.changes.map((change) => change.field)).toEqual(['status', 'rawStatus', 'updatedAt']);
    hostile = false;
    advance(order!, 'READY_FOR_PICKUP');
    const next = await stream.next(POLL_MS * 4);
    expect(next.errors).toEqual([]);
    expect(next.data!.orderUpdates.changes.map((change) => change.field)).toEqual(['status', 'rawStatus', 'updatedAt']);
  });

  it('a token valid for 40 days holds its stream past the first polls (Node’s timers stop at 24.8 days)', async () => {
    const { simulator, subscribe } = await setup();
    const token = await demoToken(simulator, 'ready@demo.test', { expiresInSeconds: 40 * 86_400 });
    const events = subscribe(token, OrderUpdatesDocument, {}).results;
    const subscribedAt = Date.now();
    expect((await events.next()).errors).toEqual([]);
    const polls = pollsAfter(simulator, 0);
    await until(() => pollsAfter(simulator, 0) >= polls + 3);
    // Past three more polls, the stream's next event is the change, not its end.
    advance(demoOrders(simulator, 'ready@demo.test')[0]!, 'DELIVERED');
    const next = await events.next(POLL_MS * 8);
    console.info(
      `a 40-day token's stream: its next event after ${Date.now() - subscribedAt} ms and ${pollsAfter(simulator, 0) - polls} polls: ${next.errors[0]?.message ?? 'the change'}`,
    );
    expect(next.errors).toEqual([]);
    expect(next.data!.orderUpdates.changes[0]).toMatchObject({ field: 'status', to: 'DELIVERED' });
  });

  it('an upstream failure is an event with its code and the stream stays open', async () => {
    const { simulator, signIn, subscribe } = await setup();
    const client = await signIn('ready@demo.test');
    const events = subscribe(client.tokens!.accessToken, OrderUpdatesDocument, {}).results;
    await events.next();
    simulator.setFault('orderDetails', '500');
    const failed = await events.next(POLL_MS * 4);
    expect(failed.data).toBeNull();
    expect(failed.errors[0]!.extensions).toMatchObject({ code: 'UPSTREAM_ERROR', operation: 'orderDetails', upstreamStatus: 500 });
    simulator.clearFaults();
    advance(demoOrders(simulator, 'ready@demo.test')[0]!, 'DELIVERED');
    // The poll backs off (twice the interval after one failure), then the change arrives.
    expect((await events.next(POLL_MS * 8)).data!.orderUpdates.changes[0]).toMatchObject({ field: 'status', to: 'DELIVERED' });
  });

  it('limits: streams per customer (RATE_LIMITED), an orderId that is not the caller’s (BAD_USER_INPUT); the SDK throws both', async () => {
    const { simulator, signIn, subscribe, customer, gateway } = await setup({ live: { pollIntervalMs: POLL_MS, perCustomer: 2 } });
    const client = await signIn('ready@demo.test');
    const token = client.tokens!.accessToken;
    const open = [subscribe(token, OrderUpdatesDocument, {}).results, subscribe(token, OrderUpdatesDocument, {}).results];
    await Promise.all(open.map((events) => events.next()));
    const third = subscribe(token, OrderUpdatesDocument, {}).results;
    const refused = await third.next();
    expect(codeOf(refused)).toBe('RATE_LIMITED');
    expect(refused.errors[0]!.message).toMatch(/Too many live streams for this customer \(2\)/);
    expect(await third.ends()).toBe(true);

    const someoneElses = demoOrders(simulator, 'production@demo.test')[0]!.id;
    const other = createOrderClient({ endpoint: gateway.endpoint, fetch: gateway.fetch });
    await other.login('two-orders@demo.test', customer('two-orders@demo.test').password);
    const error = await reader(other.watchOrders({ orderId: someoneElses }))
      .next()
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OrderClientError);
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', message: 'orderId must be the id of one of your orders.' });
  });

  it('drain ends every stream as a completed subscription', async () => {
    const { signIn, subscribe, gateway } = await setup();
    const client = await signIn('ready@demo.test');
    const events = subscribe(client.tokens!.accessToken, OrderUpdatesDocument, {}).results;
    await events.next();
    gateway.drain();
    expect(await events.ends(2000)).toBe(true);
  });
});

// Against a stub upstream whose customers have as many orders as their bearer says: what a
// 2,000-order customer's streams may hold.
const MANY_ORDERS = 2000;

/** A gateway polling every 400 ms in front of the many-orders upstream, closed after the test. */
async function stubGateway(upstream: ManyOrdersUpstream, live: Partial<TestGatewayConfig['live']> = {}) {
  const started = await startGateway({ upstreamUrls: upstream.stub.urls, upstreamTimeoutMs: 5000, live: { pollIntervalMs: 400, ...live } });
  cleanups.push(started.close);
  return started;
}

describe('a stream of a 2,000-order customer', () => {
  it('a reader that stops reading while every order changes three times, then reads: each order’s latest state, each event’s changes from the state it last had, at most one change per order', async () => {
    // Large events (the record's fields only, no per-order call, about 8 kB each), so that the
    // stream fills the sockets' buffers long before its first state is through.
    const upstream = await manyOrdersUpstream(cleanups, { latencyMs: 0, trim: 'x'.repeat(400) });
    const gateway = await stubGateway(upstream);
    const stream = await subscribeSse(
      cleanups,
      gateway.endpoint,
      'orders-2000',
      `subscription { orderUpdates { changes { field from to } order { id updatedAt ${Array.from({ length: 19 }, (_, i) => `p${i}: product { trim }`).join(' ')} } } }`,
    );
    expect(await stream.readUntil(() => stream.updates.length >= 10)).toBe(true);
    for (let generation = 1; generation <= 3; generation++) {
      const polls = upstream.polls();
      upstream.bump();
      await until(() => upstream.polls() >= polls + 2, 20_000);
    }
    // Read until every order's latest state arrived (or the stream ended).
    const latest = new Map<string, string>();
    let seen = 0;
    const caughtUp = await stream.readUntil(() => {
      for (const event of stream.updates.slice(seen))
        latest.set(event.data!.orderUpdates.order.id, event.data!.orderUpdates.order.updatedAt);
      seen = stream.updates.length;
      return latest.size === MANY_ORDERS && [...latest.values()].every((at) => at === upstream.updatedAt(3));
    });
    console.info(
      `a reader that paused while 2,000 orders changed three times: ${stream.updates.length} events once caught up (not ${MANY_ORDERS * 4})`,
    );
    expect(caughtUp).toBe(true);
    expect(stream.ended()).toBe(false);
    expectOnlyPollFailures(stream.failures());
    expect(liveCodes(stream.updates)).toEqual([]);
    // Each order's events form one chain: each change starts from the state its previous event showed.
    const shown = new Map<string, string>();
    for (const event of stream.updates) {
      const { order, changes } = event.data!.orderUpdates;
      const before = shown.get(order.id);
      if (before === undefined) expect(changes).toEqual([]);
      else expect(changes).toEqual([{ field: 'updatedAt', from: before, to: order.updatedAt }]);
      shown.set(order.id, order.updatedAt);
    }
    // Held back, the changes were merged: a first state and at most one change per order, not
    // the 8,000 events of a queue that keeps each.
    expect(stream.updates.length).toBeLessThanOrEqual(MANY_ORDERS * 2);
  }, 120_000);
});

describe('live snapshots are bounded in bytes', () => {
  it('a customer whose snapshot does not fit in LIVE_SNAPSHOT_BYTES: its streams end with RATE_LIMITED; the others go on', async () => {
    const upstream = await manyOrdersUpstream(cleanups, { latencyMs: 0 });
    const gateway = await stubGateway(upstream, { snapshotBytes: 200_000 });
    const small = await subscribeSse(cleanups, gateway.endpoint, 'orders-10', SMALL_UPDATES);
    expect(await small.readUntil(() => small.updates.length >= 10)).toBe(true);

    const large = await subscribeSse(cleanups, gateway.endpoint, 'orders-2000', SMALL_UPDATES);
    await large.readUntil(() => large.ended(), 10_000);
    console.info(
      `LIVE_SNAPSHOT_BYTES 200,000: a 2,000-order stream got ${large.events.length} events (${liveCodes(large.events).join(', ') || 'no error'})${large.ended() ? ', then ended' : ''}`,
    );
    expect(large.events).toHaveLength(1);
    expect(large.events[0]!.data).toBeNull();
    expect(large.events[0]!.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/too large to follow live/),
        extensions: expect.objectContaining({ code: 'RATE_LIMITED' }),
      }),
    ]);
    expect(large.ended()).toBe(true);
    expect(capturedLogLines.some((line) => /"level":40/.test(line) && /live snapshot refused/.test(line))).toBe(true);

    // The small customer's stream is untouched: its next change arrives.
    upstream.bump(1);
    expect(await small.readUntil(() => small.updates.length >= 11)).toBe(true);
    expect(small.updates[10]!.data!.orderUpdates.changes).toEqual([
      { field: 'updatedAt', from: upstream.updatedAt(0), to: upstream.updatedAt(1) },
    ]);
    expectOnlyPollFailures(small.failures());
    expect(small.ended()).toBe(false);
  });
});
