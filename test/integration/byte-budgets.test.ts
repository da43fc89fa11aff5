// What requests hold in bytes (src/upstream/bytes.ts, src/server/held-bytes.ts): each request
// within REQUEST_BYTES, its upstream answers counted as they arrive and its answer before it is
// written; all of them within IN_FLIGHT_BYTES, the largest giving way to a smaller one that
// needs room, and new work refused (503, Retry-After) while none can be made, on every
// transport. Through the gateway in process where the socket is not the subject, on a real
// socket where the status, Retry-After and WebSocket are. The same bounds as shipped, against the
// pod's memory, are memory-bounds.test.ts's.
import { print } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { DEFAULT_REQUEST_BYTES, WHOLE_PAGE_BYTES } from '../../src/server/config.js';
import { wholeOrderCalls } from '../../src/graph/order-fields.js';
import { defaultOrdersPage } from '../../src/graph/sdl.js';
import { createSimulator } from '../../src/simulator/server.js';
import { STRING_LENGTHS } from '../../src/upstream/models.js';
import { demoToken } from '../helpers/demo.js';
import { WHOLE_ORDER_FRAGMENTS, wholeOrderMe } from '../helpers/hostile-requests.js';
import { inProcessGateway, startGateway, type ResponseError, type TestGatewayConfig } from '../helpers/harness.js';
import { createStubUpstream, json, type InProcessStubHandler, type StubResponse } from '../helpers/stub-upstream.js';
import { subscribeSse } from '../helpers/many-orders.js';
import { createUpstreamProxy } from '../helpers/upstream-proxy.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const WHOLE_ORDER = print(WholeOrderDocument);
const KB = 1000;

/** An estimate whose fee lines each carry a description as long as the upstream may send: about `bytes` of JSON. */
const estimateOf = (bytes: number) => ({
  orderId: 'o',
  currencyCode: 'USD',
  total: 1,
  amountDue: 1,
  fees: Array.from({ length: Math.ceil(bytes / STRING_LENGTHS.text) }, (_, i) => ({
    code: `F${i}`,
    description: 'd'.repeat(STRING_LENGTHS.text - 40),
    amount: 1,
  })),
});

/** The estimate of a customer's order, in kB: `big…` 200, `mid…` 20, `est<N>…` N, `half…` 20 for its first order alone, anyone else none. */
const estimateKb = (name: string, orderId: string) =>
  name.startsWith('big')
    ? 200
    : name.startsWith('mid')
      ? 20
      : name.startsWith('half')
        ? orderId.endsWith('-o0')
          ? 20
          : 0
        : Number(/^est(\d+)/.exec(name)?.[1] ?? 0);

/**
 * The upstream: each bearer is a customer of its own (`<name>`, or `<name>:<orders>`) with that
 * many orders (one by default), each with an estimate of `estimateKb(name)`.
 * `hold` keeps a call unanswered until the test lets it go.
 */
function upstream(hold?: (path: string, bearer: string) => Promise<void> | undefined) {
  const handler: InProcessStubHandler = (request, res: StubResponse) => {
    const bearer = /^Bearer (\S+)/.exec(request.authorization ?? '')?.[1];
    if (!bearer) return json(res, 401, { code: 'UNAUTHORIZED' });
    const [name, count = '1'] = bearer.split(':');
    const answer = () => {
      const p = request.path;
      if (p.endsWith('/auth/me')) return json(res, 200, { id: name, firstName: 'Ann' });
      if (p.endsWith('/v2/order/user'))
        return json(
          res,
          200,
          Array.from({ length: Number(count) }, (_, i) => ({
            id: `${name}-o${i}`,
            reservationId: `R${i}`,
            userId: name,
            status: 'READY_FOR_PICKUP',
          })),
        );
      if (p.endsWith('/order/estimate')) return json(res, 200, estimateOf(estimateKb(name!, request.query.orderID ?? '') * KB));
      if (p.includes('/order-address/findAll/') || p.endsWith('/order-payments')) return json(res, 200, []);
      json(res, 404, { code: 'NOT_FOUND' });
    };
    const held = hold?.(request.path, bearer);
    if (held) void held.then(answer);
    else answer();
  };
  return createStubUpstream(handler);
}

type Answer = { status: number; body: { data?: unknown; errors?: ResponseError[] } };
const codes = ({ body }: Answer) => (body.errors ?? []).map((error) => error.extensions?.code);
const whole = (answer: Answer) => answer.status === 200 && codes(answer).length === 0 && answer.body.data !== null;

function inProcess(config: TestGatewayConfig, hold?: Parameters<typeof upstream>[0]) {
  const stub = upstream(hold);
  const gateway = inProcessGateway({ upstream: stub, ...config });
  cleanups.push(gateway.close, stub.close);
  const post = (bearer: string, query = WHOLE_ORDER) => gateway.post({ query }, { authorization: `Bearer ${bearer}` });
  return { stub, gateway, post };
}

describe('one request within REQUEST_BYTES', () => {
  it('upstream answers past it end the request (data null, ANSWER_TOO_LARGE), its later calls not made; another request meanwhile is whole', async () => {
    const { stub, post } = inProcess({ bytes: { request: 1_000 * KB, inFlight: 64 * 1024 * KB } });
    // Sixteen orders, an estimate of 200 kB each: 3.2 MB in all, the fifth passes 1 MB.
    const [big, other] = await Promise.all([post('big:16'), post('other:16')]);
    expect(big.status).toBe(200);
    expect(big.body).toEqual({
      data: null,
      errors: [expect.objectContaining({ message: expect.stringContaining('1000000 bytes'), extensions: { code: 'ANSWER_TOO_LARGE' } })],
    });
    expect(whole(other)).toBe(true);
    // Its calls still waiting their turn (16 at a time) when it ended were not made.
    const made = stub.requests.filter((r) => r.authorization === 'Bearer big:16').length;
    expect(made).toBeLessThan(wholeOrderCalls(16));
    expect(stub.requests.filter((r) => r.authorization === 'Bearer other:16')).toHaveLength(wholeOrderCalls(16));
  });

  it('the answer counts too: five aliases of a whole order pass it where the upstream answers (each asked once) do not', async () => {
    const { stub, post } = inProcess({ bytes: { request: 100 * KB, inFlight: 64 * 1024 * KB } });
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${wholeOrderMe((fields) => `orders(first: 1) ${fields}`)}`).join(' ')} } ${WHOLE_ORDER_FRAGMENTS}`;
    // An estimate of about 20 kB: one whole order holds about 50 kB, half of it its answer; five
    // aliases hold the same upstream answers and five times the answer.
    const one = await post('mid:1', aliases(1));
    expect(one.body.errors).toBeUndefined();
    expect(whole(one)).toBe(true);
    const calls = stub.requests.length;
    const five = await post('mid:1', aliases(5));
    expect(codes(five)).toEqual(['ANSWER_TOO_LARGE']);
    expect(five.body.data).toBeNull();
    // Its upstream answers fit: every call was made, once.
    expect(stub.requests.length - calls).toBe(calls);
  });

  it(`is sized from a whole order of the default page: what one holds (the simulator's fullest customer) is within WHOLE_PAGE_BYTES, and ${DEFAULT_REQUEST_BYTES} bytes sixteen times that`, async () => {
    const simulator = createSimulator({ latencyMs: 0 });
    let upstreamBytes = 0;
    const proxy = createUpstreamProxy(simulator, {
      rewrite: (_operation, _request, text) => ((upstreamBytes += Buffer.byteLength(text)), text),
    });
    const gateway = inProcessGateway({ upstream: proxy });
    cleanups.push(gateway.close, proxy.close, simulator.close);
    const token = await demoToken(simulator, 'ready@demo.test');
    const response = await gateway.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: WHOLE_ORDER }),
    });
    const answer = await response.text();
    const body = JSON.parse(answer) as { data: { me: { orders: unknown[] } }; errors?: unknown };
    expect(body.errors).toBeUndefined();
    const orders = body.data.me.orders.length;
    // The customer calls once, the rest once per order: a page of the default size holds that many orders' worth.
    const perOrder = (upstreamBytes + answer.length) / orders;
    const page = perOrder * defaultOrdersPage();
    console.info(
      `whole order of the default page (${defaultOrdersPage()} orders): about ${Math.round(page / KB)} kB held; REQUEST_BYTES ${DEFAULT_REQUEST_BYTES}`,
    );
    expect(page).toBeLessThanOrEqual(WHOLE_PAGE_BYTES);
    expect(DEFAULT_REQUEST_BYTES).toBeGreaterThanOrEqual(16 * WHOLE_PAGE_BYTES);
  });
});

describe('a live event within REQUEST_BYTES of its own', () => {
  it('an event past it is that event’s ANSWER_TOO_LARGE alone: the stream stays open and the next event comes whole', async () => {
    const stub = upstream();
    const gateway = await startGateway({ upstream: stub, bytes: { request: 30 * KB } });
    cleanups.push(gateway.close, stub.close);
    // Two orders: the first one's estimate of 20 kB, held and answered, passes 30 kB; the second has none.
    const stream = await subscribeSse(
      cleanups,
      gateway.endpoint,
      'half:2',
      'subscription { orderUpdates { order { id estimate { fees { description } } } } }',
    );
    expect(await stream.readUntil(() => stream.events.length >= 2)).toBe(true);
    expect(stream.failures().map((event) => event.errors?.map((error) => error.extensions?.code))).toEqual([['ANSWER_TOO_LARGE']]);
    expect(stream.updates.map((event) => event.data!.orderUpdates.order.id)).toEqual(['half-o1']);
    expect(stream.ended()).toBe(false);
  });
});

describe('all requests within IN_FLIGHT_BYTES', () => {
  it('every transport gives its bytes back: once whole orders over HTTP, multipart and a WebSocket and a live stream are done, nothing is held', async () => {
    const stub = upstream();
    const gateway = await startGateway({ upstream: stub });
    cleanups.push(gateway.close, stub.close);
    const held = async () => Number(/^order_graph_held_bytes (\d+)/m.exec(await (await gateway.fetch('/metrics')).text())?.[1]);
    const post = (accept: string, query: string) =>
      gateway.fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, authorization: 'Bearer mid:2' },
        body: JSON.stringify({ query }),
      });
    expect((await (await post('application/json', WHOLE_ORDER)).json()) as object).not.toHaveProperty('errors');
    const deferred = await post('multipart/mixed', `{ me { id ... @defer { orders { id estimate { fees { description } } } } } }`);
    expect(await deferred.text()).toContain('description');
    const socket = createClient({
      url: gateway.endpoint.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: 'Bearer mid:2' },
      retryAttempts: 0,
    });
    cleanups.push(() => socket.dispose());
    const overSocket = await new Promise<{ errors?: unknown }>((resolve, reject) =>
      socket.subscribe<unknown>({ query: WHOLE_ORDER }, { next: resolve, error: reject, complete: () => undefined }),
    );
    expect(overSocket.errors).toBeUndefined();
    const stream = await subscribeSse(
      cleanups,
      gateway.endpoint,
      'mid:2',
      'subscription { orderUpdates { order { id estimate { fees { code } } } } }',
    );
    expect(await stream.readUntil(() => stream.updates.length >= 2)).toBe(true);
    await cleanups.pop()!();
    await socket.dispose();
    // Each gave back what it held: its upstream answers (the estimates, 20 kB each) and its answer.
    for (let i = 0; (await held()) !== 0 && i < 100; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await held()).toBe(0);
  });

  it('a request that needs room ends the larger one holding it (OVERLOADED, 503, Retry-After) and is answered whole', async () => {
    const gates: Array<() => void> = [];
    // The big customer's trade-in calls wait, so it holds its estimates meanwhile.
    const hold = (path: string, bearer: string) =>
      bearer.startsWith('big') && path.endsWith('/trade-in-details') ? new Promise<void>((resolve) => gates.push(resolve)) : undefined;
    // Room for the big one's two estimates and a little more, not for the next one's whole order beside them.
    const inFlight = 2 * JSON.stringify(estimateOf(200 * KB)).length + KB;
    const { gateway, post } = inProcess({ bytes: { request: 4_000 * KB, inFlight } }, hold);
    cleanups.push(() => gates.forEach((open) => open()));
    const big = post('big:2');
    while (gates.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const small = await post('small:1');
    expect(small).toEqual({ status: 200, body: { data: expect.anything() } });
    gates.forEach((open) => open());
    const ended = await big;
    expect(ended.status).toBe(503);
    expect(codes(ended)).toEqual(['OVERLOADED']);
    expect(ended.body.errors![0]!.extensions).toMatchObject({ retryAfterSeconds: 1 });
    // Making room for a smaller one sheds nothing: the next request is served.
    expect(whole(await post('after:1'))).toBe(true);
    expect((await (await gateway.fetch('/readyz')).json()) as object).toMatchObject({ memory: 'ok' });
  });

  it('with no room to make, the one that needs it ends and the ceiling sheds: new work gets in while a larger request holds room (it would give way), else is refused on every transport (503, Retry-After) until room is back', async () => {
    const gates: Array<() => void> = [];
    const hold = (path: string, bearer: string) =>
      bearer.startsWith('est250') && path.endsWith('/trade-in-details') ? new Promise<void>((resolve) => gates.push(resolve)) : undefined;
    const stub = upstream(hold);
    // Shedding lasts 3 s once it begins: time enough on a loaded machine for the requests below.
    const gateway = await startGateway({
      upstream: stub,
      bytes: { request: 4_000 * KB, inFlight: 300 * KB, shedMs: 3000, smallBytes: 200 * KB },
    });
    cleanups.push(gateway.close, stub.close, () => gates.forEach((open) => open()));
    const post = async (bearer: string, query = WHOLE_ORDER) => {
      const response = await gateway.fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
        body: JSON.stringify({ query }),
      });
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as Answer['body'] };
    };
    const memory = async () => ((await (await gateway.fetch('/readyz')).json()) as { memory: string }).memory;
    // One holds an estimate of 250 kB while its trade-in waits (its answer is small).
    const holder = post('est250:1', '{ me { orders { estimate { total { amount } } tradeIn { id } } } }');
    while (gates.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    // One needs 300 kB at once: nobody holds more to give way, so it ends, and the ceiling sheds.
    const alone = await post('est300:1');
    expect({ status: alone.status, codes: codes(alone) }).toEqual({ status: 503, codes: ['OVERLOADED'] });
    expect(await memory()).toBe('shedding');
    // A small request still gets in: the holder has more than a small request needs, and room is left beside it.
    const small = await post('small:1');
    expect({ status: small.status, codes: codes(small) }).toEqual({ status: 200, codes: [] });
    gates.forEach((open) => open());
    expect(codes({ status: 200, body: (await holder).body })).toEqual([]);
    // Nobody large holds room now: while the ceiling sheds, new work is refused before it runs, over HTTP and on a WebSocket alike.
    const calls = stub.requests.length;
    const refused = await post('small:1');
    expect({ status: refused.status, retryAfter: refused.retryAfter, codes: codes(refused), data: refused.body.data }).toEqual({
      status: 503,
      retryAfter: '3',
      codes: ['OVERLOADED'],
      data: undefined,
    });
    const socket = createClient({
      url: gateway.endpoint.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: 'Bearer small:1' },
      retryAttempts: 0,
    });
    cleanups.push(() => socket.dispose());
    const overSocket = await new Promise<unknown>((resolve, reject) =>
      socket.subscribe({ query: '{ me { firstName } }' }, { next: resolve, error: reject, complete: () => undefined }),
    );
    expect(overSocket).toMatchObject({ errors: [{ extensions: { code: 'OVERLOADED' } }] });
    expect(stub.requests.length).toBe(calls);
    // Room again once the moment has passed: readiness says so, and the same request is served.
    while ((await memory()) !== 'ok') await new Promise((resolve) => setTimeout(resolve, 100));
    const served = await post('small:1');
    expect({ status: served.status, codes: codes({ status: 200, body: served.body }) }).toEqual({ status: 200, codes: [] });
  });
});
