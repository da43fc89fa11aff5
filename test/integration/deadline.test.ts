// The request deadline (REQUEST_DEADLINE_MS), against a real gateway: it cuts what hangs
// whatever the per-call timeout, however far the request fans out; time spent waiting for a
// turn counts against it, and no call starts once it has passed. (No retry is made that would
// not fit before it: with the other retry rules, in upstream-http.test.ts.)
import { afterEach, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { ORDER_FIELD_OPERATIONS, PER_ORDER_OPERATIONS } from '../../src/graph/order-fields.js';
import { createSimulator } from '../../src/simulator/server.js';
import { demoToken } from '../helpers/demo.js';
import {
  execute,
  inProcessGateway,
  startGateway,
  type ResponseError,
  type TestGateway,
  type TestGatewayConfig,
} from '../helpers/harness.js';
import { createStubUpstream, json, startStubUpstream, type InProcessStubHandler, type StubResponse } from '../helpers/stub-upstream.js';
import { wholeOrders } from '../helpers/whole-order.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const order = (id: string) => ({ id, reservationId: `R-${id}`, userId: 'u', status: 'READY_FOR_PICKUP', product: { currencyCode: 'USD' } });
const FIRST_WAVE = ['/auth/me', '/v2/order/user'];
const isFirstWave = (path: string) => FIRST_WAVE.some((suffix) => path.endsWith(suffix));
/** A stub upstream and a gateway in front of it, both closed after the test: in process, or on sockets where they are the subject. */
async function gatewayOver(handler: InProcessStubHandler, config: TestGatewayConfig, { sockets = false } = {}) {
  const stub = sockets ? await startStubUpstream(handler) : createStubUpstream(handler);
  const gateway: TestGateway =
    'handle' in stub ? inProcessGateway({ upstream: stub, ...config }) : await startGateway({ upstreamUrls: stub.urls, ...config });
  cleanups.push(stub.close, gateway.close);
  return { stub, gateway };
}

/** The first wave answered at once: `/auth/me`, and as many orders as the bearer says (`orders-2000`), else one. */
function answerFirstWave(request: { path: string; authorization?: string | undefined }, res: StubResponse) {
  if (request.path.endsWith('/auth/me')) return json(res, 200, { id: 'u' });
  const count = Number(/orders-(\d+)/.exec(request.authorization ?? '')?.[1] ?? 1);
  return json(
    res,
    200,
    Array.from({ length: count }, (_, i) => order(`o${i}`)),
  );
}

async function ask(gateway: TestGateway, token: string, query: string) {
  const started = performance.now();
  const response = await gateway.client(token).rawRequest<any>(query);
  return { data: response.data, errors: (response.errors ?? []) as unknown as ResponseError[], ms: performance.now() - started };
}
const codes = (errors: ResponseError[]) => [...new Set(errors.map((e) => e.extensions?.code))].sort();

const WHOLE_ORDERS = wholeOrders;

describe('the request deadline', () => {
  it('cuts a hung upstream call at REQUEST_DEADLINE_MS, not at the longer per-call timeout, retries or not; the rest of the order is answered', async () => {
    const simulator = createSimulator({ latencyMs: 0 });
    cleanups.push(() => simulator.close());
    const gateway = inProcessGateway({
      upstream: simulator,
      upstreamTimeoutMs: 60_000,
      upstreamRetries: 3,
      // Long enough for the other calls on a loaded machine (at load 8 on two cores a worker
      // may take a second or more for them), far short of the per-call timeout.
      requestDeadlineMs: 4_000,
    });
    cleanups.push(gateway.close);
    const token = await demoToken(simulator, 'ready@demo.test');
    simulator.setFault('priceEstimate', 'hang');
    const started = Date.now();
    const { data, errors } = await execute(gateway.client(token), WholeOrderDocument);
    const elapsed = Date.now() - started;
    expect(data?.me?.orders?.[0]?.estimate).toBeNull();
    expect(data?.me?.orders?.[0]?.vehicle?.vin).toHaveLength(17);
    expect(errors.map((e) => [e.path?.at(-1), e.extensions?.code])).toEqual([['estimate', 'UPSTREAM_TIMEOUT']]);
    // Cut by the deadline: the per-call timeout alone would have taken 60 s at the least (a
    // structural bound, which load cannot break; not a speed claim).
    expect(elapsed).toBeLessThan(60_000);
  });

  it('no upstream call outlives it, however far the request fans out: with the per-order calls never answered, every answer comes at the deadline and every call is cut', async () => {
    // The per-order calls are held, never answered: how many, and how many the gateway closed.
    let held = 0;
    let closed = 0;
    const { gateway } = await gatewayOver(
      (request, res) => {
        if (isFirstWave(request.path)) return answerFirstWave(request, res);
        held += 1;
        res.on('close', () => (closed += 1));
      },
      // A per-call timeout far beyond the deadline: only the deadline can end these requests.
      // (Four seconds: the first waves, answered at once, reach the per-order calls well
      // within it however busy the machine.)
      { requestDeadlineMs: 4000, upstreamTimeoutMs: 600_000 },
      // On sockets: that each call is cut is seen as its connection's close.
      { sockets: true },
    );
    const results = await Promise.all(['orders-150a', 'orders-150b', 'orders-150c'].map((token) => ask(gateway, token, WHOLE_ORDERS(100))));
    for (const { ms, errors } of results) {
      expect(ms).toBeGreaterThanOrEqual(4000 - 50);
      // The fields whose calls were cut, and (past the call budget) those never asked.
      expect(codes(errors)).toEqual(['UPSTREAM_BUDGET_EXCEEDED', 'UPSTREAM_TIMEOUT']);
    }
    // Each held call was cut by the gateway (none answered, none left open).
    while (closed < held) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(held).toBeGreaterThan(0);
    console.info(
      `deadline 4,000 ms, per-order calls never answered, three 100-order requests: answered after ${results.map((r) => r.ms.toFixed(0)).join(', ')} ms, ${held} calls cut`,
    );
  });

  it('time spent waiting for a turn counts against it, and no call starts once it has passed: one call at a time, 600 ms each, a 1,500 ms deadline makes at most 3 of the per-order calls', async () => {
    const { stub, gateway } = await gatewayOver(
      (request, res) =>
        isFirstWave(request.path) ? answerFirstWave(request, res) : setTimeout(() => !res.destroyed && json(res, 404, {}), 600),
      // The first wave, answered at once, has the whole deadline to come back in however busy
      // the machine (at load 8 a worker may take a second or more for it).
      { requestDeadlineMs: 1_500, upstreamTimeoutMs: 60_000, upstreamBudget: { calls: 100, concurrency: 1, retries: 4 } },
    );
    const { data, errors } = await ask(gateway, 't', WHOLE_ORDERS(1));
    const made = stub.requests.filter((request) => !isFirstWave(request.path)).length;
    // The fourth call could start only after 1,800 ms: whatever the machine's load, it never does.
    expect(made).toBeLessThanOrEqual(3);
    // The fields whose calls waited past the deadline are cut without a call, as the one in flight then.
    expect(data.me.orders).toHaveLength(1);
    expect(codes(errors)).toEqual(['UPSTREAM_TIMEOUT']);
    const cutOperations = new Set(errors.map((e) => ORDER_FIELD_OPERATIONS[e.path?.[3] as keyof typeof ORDER_FIELD_OPERATIONS]));
    expect(cutOperations.size).toBeGreaterThanOrEqual(PER_ORDER_OPERATIONS.length - made);
  });
});
