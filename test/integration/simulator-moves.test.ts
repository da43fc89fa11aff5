// The demo's moving order (src/simulator/moves.ts): production@demo.test's order takes its
// next stage on the simulator's timer, or at once on POST /__simulator/advance, so a live
// subscription has a change to show without anyone touching the data; test simulators never
// move it unless asked; `npm start`'s embedded simulator and `npm run simulator` move it
// every minute by default; and npm start's gateway polls the demo every 5 s, so a move
// reaches a subscriber at the next poll, within 5 s.
import { afterEach, describe, expect, it } from 'vitest';
import { createOrderClient, type OrderResult } from '../../src/client/index.js';
import type { OrderUpdatesSubscription } from '../../src/client/__generated__/graphql.js';
import { createSeedData } from '../../src/simulator/data.js';
import { DEMO_ADVANCE_EVERY_MS, MOVING_CUSTOMER, MOVING_STAGES, startSimulator, type Simulator } from '../../src/simulator/server.js';
import { demoCustomer, demoOrders } from '../helpers/demo.js';
import { startHarness } from '../helpers/harness.js';
import { DEMO_LIVE_POLL_INTERVAL_MS, loadConfig } from '../../src/server/config.js';
import { killStarted, startProcess } from '../helpers/process.js';
import { until } from '../helpers/intervals.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  killStarted();
  while (cleanups.length) await cleanups.pop()!();
});

async function simulatorWith(options: Parameters<typeof startSimulator>[0]) {
  const simulator = await startSimulator({ latencyMs: 0, ...options });
  cleanups.push(simulator.close);
  return simulator;
}

const movingOrder = (simulator: Simulator) => {
  const [order] = demoOrders(simulator, MOVING_CUSTOMER);
  return order!;
};

/**
 * Every status the moving order takes, with when (sampled every 5 ms: on the same event loop
 * as the simulator's timer, a sample always falls between two moves an interval apart).
 */
function recordMoves(simulator: Simulator) {
  const order = movingOrder(simulator);
  const seen = [{ status: order.status, updatedAt: order.updatedAt!, at: Date.now() }];
  const timer = setInterval(() => {
    if (order.status !== seen.at(-1)!.status) seen.push({ status: order.status, updatedAt: order.updatedAt!, at: Date.now() });
  }, 5);
  cleanups.push(() => clearInterval(timer));
  return seen;
}

/** Resolves once the condition holds (checked every 10 ms); fails after `timeoutMs`. */

const post = (url: string, method = 'POST') =>
  fetch(url, { method }).then(async (response) => ({
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, any>,
  }));

describe('the simulator moves the demo order on its own', () => {
  it('with a short interval: through every stage in order and round again, updatedAt only forward, no other order touched', async () => {
    const simulator = await simulatorWith({ advanceEveryMs: 50 });
    const seen = recordMoves(simulator);
    await until(() => seen.length >= MOVING_STAGES.length + 2);

    const statuses = seen.map(({ status }) => status);
    expect(statuses.slice(0, MOVING_STAGES.length + 2)).toEqual([...MOVING_STAGES, ...MOVING_STAGES.slice(0, 2)]);
    for (const [index, { updatedAt }] of seen.entries())
      if (index > 0) expect(Date.parse(updatedAt)).toBeGreaterThan(Date.parse(seen[index - 1]!.updatedAt));
    // The others are exactly as seeded: tests and docs rely on their stages.
    const seeded = createSeedData();
    const others = (orders: typeof seeded.orders) => orders.filter((order) => order.id !== movingOrder(simulator).id);
    expect(others(simulator.data.orders)).toEqual(others(seeded.orders));
    expect(simulator.data.users).toEqual(seeded.users);
  });

  it('by default never: a test simulator serves the seeded data only, and has no trigger', async () => {
    const simulator = await simulatorWith({});
    expect(simulator.moving).toBeNull();
    const origin = new URL(simulator.urls.ORDER_URL).origin;
    // Not served: the upstream's own 404 (the request is logged like any unknown path).
    expect((await post(`${origin}/__simulator/advance`)).status).toBe(404);
    expect(simulator.requestLog.map((entry) => entry.path)).toEqual(['/__simulator/advance']);
    expect(movingOrder(simulator)).toEqual(movingOrder({ ...simulator, data: createSeedData() }));
    // The harness's simulator too.
    const harness = await startHarness({ sockets: true });
    cleanups.push(harness.close);
    expect(harness.simulator.moving).toBeNull();
  });
});

describe('POST /__simulator/advance', () => {
  it('moves the order at once and says what it did; only POST does; it stays out of the request log', async () => {
    // An hour: the timer never fires during the test, every move here is the trigger's.
    const simulator = await simulatorWith({ advanceEveryMs: 3_600_000, statsEndpoint: true });
    expect(simulator.moving).toEqual({
      username: MOVING_CUSTOMER,
      everyMs: 3_600_000,
      advanceUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/__simulator\/advance$/),
    });
    const order = movingOrder(simulator);

    const refused = await post(simulator.moving!.advanceUrl, 'GET');
    expect([refused.status, refused.headers.get('allow'), order.status]).toEqual([405, 'POST', 'IN_PRODUCTION']);

    const moves = [];
    for (let step = 0; step < MOVING_STAGES.length; step += 1) moves.push(await post(simulator.moving!.advanceUrl));
    expect(moves.map(({ status, body }) => [status, body.from, body.to])).toEqual([
      [200, 'IN_PRODUCTION', 'IN_TRANSIT'],
      [200, 'IN_TRANSIT', 'READY_FOR_PICKUP'],
      [200, 'READY_FOR_PICKUP', 'DELIVERED'],
      [200, 'DELIVERED', 'IN_PRODUCTION'],
    ]);
    const last = moves.at(-1)!.body;
    expect(last).toMatchObject({
      username: MOVING_CUSTOMER,
      orderId: order.id,
      reservationId: order.reservationId,
      at: order.updatedAt,
      everyMs: 3_600_000,
    });
    // The next move on its own is a whole interval after this one.
    expect(Date.parse(last.nextAt) - Date.parse(last.at)).toBeGreaterThanOrEqual(3_600_000);
    expect(simulator.requestLog).toEqual([]);
    // The stats endpoint beside it still answers.
    expect((await post(`${new URL(simulator.moving!.advanceUrl).origin}/__simulator/stats`, 'GET')).body).toMatchObject({ total: 0 });
  });

  it('restarts the count: after a trigger the next move on its own is a whole interval later, not moments', async () => {
    const everyMs = 400;
    const simulator = await simulatorWith({ advanceEveryMs: everyMs });
    const seen = recordMoves(simulator);
    await until(() => seen.length === 2); // the timer's first move: its next is due an interval after it
    const triggered = (await post(simulator.moving!.advanceUrl)).body;
    await until(() => seen.some(({ updatedAt }) => Date.parse(updatedAt) > Date.parse(triggered.at)));
    const after = seen.find(({ updatedAt }) => Date.parse(updatedAt) > Date.parse(triggered.at))!;
    // Move times are the moves' own updatedAt. A lower bound only: load can make a move later, never sooner.
    expect(Date.parse(after.updatedAt) - Date.parse(triggered.at)).toBeGreaterThanOrEqual(everyMs - 2);
    // Timer and trigger took turns without skipping a stage.
    const statuses = seen.map(({ status }) => status);
    expect(statuses).toEqual(MOVING_STAGES.slice(0, statuses.length));
    expect(statuses).toContain(triggered.to);
  });
});

/** The SDK's live stream read on demand: `next()` is its next result (failing after `timeoutMs`). */
function reader<T>(stream: AsyncGenerator<OrderResult<T>>) {
  const iterator = stream[Symbol.asyncIterator]();
  return async (timeoutMs = 20_000): Promise<OrderResult<T>> => {
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      iterator.next(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no result within ${timeoutMs} ms`)), timeoutMs))),
    ]).finally(() => clearTimeout(timer));
    if (result.done) throw new Error('the stream ended');
    return result.value;
  };
}

/** The status change an event carries, as [from, to]. */
const statusChange = (event: OrderResult<OrderUpdatesSubscription>) => {
  const change = event.data!.orderUpdates.changes.find(({ field }) => field === 'status');
  return [change?.from, change?.to];
};

describe('end to end: a subscriber sees the order move, nobody touching the data', () => {
  it('watchOrders for production@demo.test: its state, then each stage change with its rawStatus and updatedAt', async () => {
    const harness = await startHarness({ sockets: true, simulator: { advanceEveryMs: 1000 }, gateway: { live: { pollIntervalMs: 100 } } });
    cleanups.push(harness.close);
    const { password } = demoCustomer(harness.simulator, MOVING_CUSTOMER);
    const client = createOrderClient({ endpoint: harness.endpoint });
    await client.login(MOVING_CUSTOMER, password);
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    const next = reader(client.watchOrders({ signal: abort.signal, minIntervalMs: 100 }));

    const first = await next();
    expect(first.errors).toEqual([]);
    expect(first.data!.orderUpdates.changes).toEqual([]);
    const seeded = first.data!.orderUpdates.order;
    expect(seeded.status).toBe('IN_PRODUCTION');

    const events = [await next(), await next()];
    expect(events.map((event) => event.errors)).toEqual([[], []]);
    // Each event starts where the last one ended, and goes forward through the stages (a poll
    // delayed past two moves sees them as one).
    const [from1, to1] = statusChange(events[0]!);
    const [from2, to2] = statusChange(events[1]!);
    expect([from1, from2]).toEqual(['IN_PRODUCTION', to1]);
    expect(MOVING_STAGES.indexOf(to1 as never)).toBeGreaterThan(0);
    expect(MOVING_STAGES.indexOf(to2 as never)).toBeGreaterThan(MOVING_STAGES.indexOf(to1 as never));
    const update = events[0]!.data!.orderUpdates;
    expect(update.order).toMatchObject({ id: seeded.id, status: to1, rawStatus: to1 });
    expect(update.changes).toEqual(
      expect.arrayContaining([
        { field: 'status', from: 'IN_PRODUCTION', to: to1 },
        { field: 'rawStatus', from: 'IN_PRODUCTION', to: to1 },
        { field: 'updatedAt', from: seeded.updatedAt, to: update.order.updatedAt },
      ]),
    );
    expect(Date.parse(update.order.updatedAt!)).toBeGreaterThan(Date.parse(seeded.updatedAt!));
  });
});

describe("npm start's demo: a move reaches a subscriber at the next poll, every 5 s", () => {
  it('the embedded simulator’s configuration polls every 5 s; an advance made by its URL is the first poll’s event after it', async () => {
    // npm start's configuration: no upstream URLs, so the embedded simulator, moving the order every minute.
    const config = loadConfig({});
    expect(config.upstreamUrls).toBeNull();
    expect(config.live.pollIntervalMs).toBe(DEMO_LIVE_POLL_INTERVAL_MS);
    expect(DEMO_LIVE_POLL_INTERVAL_MS).toBe(5000);
    const harness = await startHarness({
      sockets: true,
      simulator: { advanceEveryMs: DEMO_ADVANCE_EVERY_MS },
      gateway: { live: config.live },
    });
    cleanups.push(harness.close);
    const client = createOrderClient({ endpoint: harness.endpoint });
    await client.login(MOVING_CUSTOMER, demoCustomer(harness.simulator, MOVING_CUSTOMER).password);
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    const next = reader(client.watchOrders({ signal: abort.signal }));
    expect((await next()).data!.orderUpdates.changes).toEqual([]);

    const moved = await post(harness.simulator.moving!.advanceUrl);
    expect(moved.body).toMatchObject({ from: 'IN_PRODUCTION', to: 'IN_TRANSIT' });
    // The next event is that move, carried by the first poll of the order list after it: within
    // one poll interval (5 s). (The wait allowed is a backstop for a loaded machine.)
    const event = await next(2 * DEMO_LIVE_POLL_INTERVAL_MS + 10_000);
    expect(statusChange(event)).toEqual(['IN_PRODUCTION', 'IN_TRANSIT']);
    const movedAt = Date.parse(moved.body.at as string);
    const pollsSince = harness.simulator.requestLog.filter((entry) => entry.operation === 'orderDetails' && entry.at >= movedAt);
    expect(pollsSince).toHaveLength(1);
  });
});

describe('the processes people start move it every minute by default', () => {
  it("npm start's entry (no upstream): the banner says how, GraphiQL's tab says so, the trigger moves it and a subscriber sees it", async () => {
    // The sources through tsx: the same serve.ts as the compiled entry, without building dist/ under other tests.
    const server = startProcess(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      PORT: '0',
      LOG_LEVEL: 'warn',
      LIVE_POLL_INTERVAL_MS: '100',
    });
    const [, endpoint] = await server.output(/Order Graph is listening at (http:\/\/\S+)/);
    const [, username, seconds] = await server.output(
      /^(\S+)'s order takes its next stage every (\d+) s: watch it in the OrderUpdates tab/m,
    );
    const [, advanceUrl] = await server.output(/To move it now: curl -X POST (http:\/\/\S+)/);
    expect([username, Number(seconds) * 1000]).toEqual([MOVING_CUSTOMER, DEMO_ADVANCE_EVERY_MS]);
    const [, password] = server.stdout().match(new RegExp(`^\\s+${username!.replace(/\./g, '\\.')}\\s+(\\S+)`, 'm'))!;

    const page = await fetch(endpoint!, { headers: { accept: 'text/html' } }).then((response) => response.text());
    expect(page).toContain(`In this demo ${MOVING_CUSTOMER}'s order takes`);

    const client = createOrderClient({ endpoint: endpoint! });
    await client.login(username!, password!);
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    const next = reader(client.watchOrders({ signal: abort.signal, minIntervalMs: 100 }));
    expect((await next()).data!.orderUpdates.order.status).toBe('IN_PRODUCTION');

    const moved = await post(advanceUrl!);
    expect(moved.body).toMatchObject({ from: 'IN_PRODUCTION', to: 'IN_TRANSIT', everyMs: DEMO_ADVANCE_EVERY_MS });
    expect(statusChange(await next())).toEqual(['IN_PRODUCTION', 'IN_TRANSIT']);
  });

  it('npm run simulator: every minute unless SIM_ADVANCE_EVERY_MS says otherwise (0: never)', async () => {
    const started = (env: Record<string, string>) =>
      startProcess(process.execPath, ['--import', 'tsx', 'src/simulator/main.ts'], { SIM_PORT: '0', ...env });
    const line = async (env: Record<string, string>) =>
      JSON.parse((await started(env).output(/^\{.*\}$/m))[0]) as { moving: Simulator['moving'] };

    const byDefault = await line({});
    expect(byDefault.moving).toMatchObject({ username: MOVING_CUSTOMER, everyMs: DEMO_ADVANCE_EVERY_MS });
    expect((await post(byDefault.moving!.advanceUrl)).body).toMatchObject({ from: 'IN_PRODUCTION', to: 'IN_TRANSIT' });
    expect((await line({ SIM_ADVANCE_EVERY_MS: '250' })).moving).toMatchObject({ everyMs: 250 });
    expect((await line({ SIM_ADVANCE_EVERY_MS: '0' })).moving).toBeNull();

    const refused = started({ SIM_ADVANCE_EVERY_MS: 'soon' });
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toMatch(/^simulator: SIM_ADVANCE_EVERY_MS must be an integer between 0 and 2147483647, got "soon"$/m);
  });
});
