// The upstream HTTP layer on its own (src/upstream/http.ts) against a per-test stub, over each
// transport (undici's, the default, and got's): the retry rules (all of them: which failures,
// how many, Retry-After, the deadline's and the budget's part), the answer size cap, redirects,
// timeouts, cancellation, connections, what a call sends and what it never sends (the request
// deadline and budget themselves are tested at the gateway: deadline.test.ts, budgets.test.ts);
// and the gateway on the simulator with each UPSTREAM_CLIENT.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { startSimulator } from '../../src/simulator/server.js';
import { gotTransport } from '../../src/upstream/got-transport.js';
import { createUpstreamHttp, type UpstreamHttpOptions } from '../../src/upstream/http.js';
import { ByteCeiling } from '../../src/upstream/bytes.js';
import { CallScope } from '../../src/upstream/scope.js';
import { undiciTransport } from '../../src/upstream/undici-transport.js';
import { demoToken } from '../helpers/demo.js';
import { execute, graphqlClient, startGateway } from '../helpers/harness.js';
import { json, startStubUpstream, type StubHandler } from '../helpers/stub-upstream.js';
import { wholeOrderCalls } from '../../src/graph/order-fields.js';

/** The upstream calls of a whole order whose customer has one order. */
const ONE_ORDER_CALLS = wholeOrderCalls(1);

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A request's scope: a deadline 5 s off, the default budget and 4 MiB to hold, unless given. */
const scope = (
  signal?: AbortSignal,
  limits = CallScope.limits(5000, { calls: 100, concurrency: 16, retries: 4 }),
  bytes = new ByteCeiling(64 * MIB).budget(4 * MIB),
) =>
  new CallScope({
    id: 'req-1',
    auth: { token: 'token-1', expired: false, expiresAt: null },
    acceptLanguage: 'de-DE',
    clientAddress: '203.0.113.7',
    signal,
    bytes,
    ...limits,
  });
const MIB = 2 ** 20;

const estimate = { params: { orderID: 'ord-1' }, bearer: 'token-1' };

describe.each([
  ['undici', undiciTransport],
  ['got', gotTransport],
])('over %s', (_name, transport) => {
  async function setup(handler: StubHandler, options: Partial<Omit<UpstreamHttpOptions, 'urls'>> = {}) {
    const stub = await startStubUpstream(handler);
    const http = createUpstreamHttp({ urls: stub.urls, transport, timeoutMs: 1000, retries: 1, maxBodyBytes: 100_000, ...options });
    cleanups.push(stub.close, http.close);
    return { stub, http };
  }

  // Every retry rule is here: which failures are retried, how many times, Retry-After, not past
  // the request's deadline, and within the request's budget.
  describe('retries', () => {
    it.each([502, 503, 504])('an idempotent GET is retried after a %i, and the answer after it is used', async (status) => {
      let calls = 0;
      const { stub, http } = await setup((_request, res) => (++calls === 1 ? json(res, status, {}) : json(res, 200, { ok: true })));
      const result = await http.send('priceEstimate', estimate, scope());
      expect(result).toEqual({ ok: true, status: 200, body: '{"ok":true}' });
      expect(stub.requests).toHaveLength(2);
    });

    it('a GET is retried after the connection is reset', async () => {
      let calls = 0;
      const { stub, http } = await setup((_request, res) => (++calls === 1 ? res.socket!.destroy() : json(res, 200, {})));
      expect((await http.send('priceEstimate', estimate, scope())).ok).toBe(true);
      expect(stub.requests).toHaveLength(2);
    });

    it('a POST is never retried, not even after a 503', async () => {
      const { stub, http } = await setup((_request, res) => json(res, 503, {}));
      const result = await http.send('login', { json: { username: 'u', password: 'p' } }, scope());
      expect(result).toMatchObject({ ok: false, failure: { kind: 'status', status: 503 } });
      expect(stub.requests).toHaveLength(1);
    });

    it.each([500, 429, 404])('a GET answered %i is not retried', async (status) => {
      const { stub, http } = await setup((_request, res) => json(res, status, {}));
      expect(await http.send('priceEstimate', estimate, scope())).toMatchObject({ ok: false, failure: { kind: 'status', status } });
      expect(stub.requests).toHaveLength(1);
    });

    it('at most UPSTREAM_RETRIES retries a call: with 2, a GET answered 503 every time is sent 3 times; with 0, once', async () => {
      const { stub, http } = await setup((_request, res) => json(res, 503, {}), { retries: 2 });
      expect(await http.send('priceEstimate', estimate, scope())).toMatchObject({ ok: false, failure: { kind: 'status', status: 503 } });
      expect(stub.requests).toHaveLength(3);
      const none = await setup((_request, res) => json(res, 503, {}), { retries: 0 });
      expect(await none.http.send('priceEstimate', estimate, scope())).toMatchObject({
        ok: false,
        failure: { kind: 'status', status: 503 },
      });
      expect(none.stub.requests).toHaveLength(1);
    });

    it('a timeout is not retried', async () => {
      const { stub, http } = await setup(() => undefined, { timeoutMs: 200, retries: 3 });
      expect(await http.send('priceEstimate', estimate, scope())).toEqual({ ok: false, failure: { kind: 'timeout' } });
      expect(stub.requests).toHaveLength(1);
    });

    it.each([
      ['in seconds', () => '5'],
      ['as a date', () => new Date(Date.now() + 10_000).toUTCString()],
    ])(
      'a 503 whose Retry-After (%s) asks for a longer wait than an attempt may take is not retried; one within it is',
      async (_, later) => {
        const { stub, http } = await setup((_request, res) => json(res, 503, {}, { 'retry-after': later() }));
        expect(await http.send('priceEstimate', estimate, scope())).toMatchObject({ ok: false, failure: { kind: 'status', status: 503 } });
        expect(stub.requests).toHaveLength(1);
        const soon = await setup((_request, res) => json(res, 503, {}, { 'retry-after': '0' }));
        await soon.http.send('priceEstimate', estimate, scope());
        expect(soon.stub.requests).toHaveLength(2);
      },
    );

    it('no retry that would not fit before the request deadline: a 503 is not retried when a whole further attempt would end past it', async () => {
      const { stub, http } = await setup((_request, res) => json(res, 503, {}), { timeoutMs: 1000, retries: 3 });
      const late = scope(undefined, CallScope.limits(600, { calls: 100, concurrency: 16, retries: 4 }));
      expect(await http.send('priceEstimate', estimate, late)).toMatchObject({ ok: false, failure: { kind: 'status', status: 503 } });
      expect(stub.requests).toHaveLength(1);
    });

    it("retries are capped per request, across its calls, and count as calls: six GETs answered 503, one retry each allowed, 4 in the request's budget", async () => {
      const { stub, http } = await setup((_request, res) => json(res, 503, {}), { retries: 1 });
      const request = scope();
      await Promise.all(Array.from({ length: 6 }, () => http.send('priceEstimate', estimate, request)));
      // Six calls, plus 4 retries rather than one for each call.
      expect(stub.requests).toHaveLength(6 + 4);
      expect(request.budget.calls).toBe(6 + 4);
      // A retry takes a call of the budget: none once its calls are spent.
      const spent = scope(undefined, CallScope.limits(5000, { calls: 1, concurrency: 16, retries: 4 }));
      await http.send('priceEstimate', estimate, spent);
      expect(stub.requests).toHaveLength(6 + 4 + 1);
    });
  });

  describe('answers', () => {
    it('an answer larger than the cap is cut off, with or without a content length', async () => {
      const big = 'x'.repeat(300_000);
      const { http } = await setup((request, res) => {
        if (request.query.orderID === 'sized') return json(res, 200, { big });
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 30; i++) res.write('x'.repeat(10_000));
        res.end();
      });
      for (const orderID of ['sized', 'chunked']) {
        expect(await http.send('priceEstimate', { params: { orderID }, bearer: 't' }, scope())).toEqual({
          ok: false,
          failure: { kind: 'oversized' },
        });
      }
    });

    it('an answer that arrives in pieces is read whole, a character split between two of them included', async () => {
      const body = Buffer.from(JSON.stringify({ city: 'Málaga', items: 'x'.repeat(20_000) }));
      const split = body.indexOf(Buffer.from('á')) + 1;
      const { http } = await setup((_request, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(body.subarray(0, split));
        // A pause, so the rest is a read of its own.
        setTimeout(() => res.end(body.subarray(split)), 30);
      });
      expect(await http.send('priceEstimate', estimate, scope())).toEqual({ ok: true, status: 200, body: body.toString('utf8') });
    });

    it("an answer past what its request may still hold is cut off as it arrives (with or without a length), and the request's next calls are not made", async () => {
      const big = 'x'.repeat(60_000);
      const { stub, http } = await setup((request, res) => {
        if (request.query.orderID !== 'chunked') return json(res, 200, { big });
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 6; i++) res.write('x'.repeat(10_000));
        res.end();
      });
      for (const orderID of ['sized', 'chunked']) {
        // 100 kB for the request: a first answer of 60 kB is held, a second passes it.
        const request = scope(undefined, undefined, new ByteCeiling(MIB).budget(100_000));
        expect(await http.send('priceEstimate', { params: { orderID: 'sized' }, bearer: 't' }, request)).toMatchObject({ ok: true });
        const ended = { ok: false, failure: { kind: 'bytes', budget: { ended: 'ANSWER_TOO_LARGE', limit: 100_000 } } };
        expect(await http.send('priceEstimate', { params: { orderID }, bearer: 't' }, request)).toMatchObject(ended);
        const sent = stub.requests.length;
        expect(await http.send('priceEstimate', estimate, request)).toMatchObject(ended);
        expect(stub.requests).toHaveLength(sent);
      }
    });

    it('a redirect is not followed: it is an answer that is not the contract', async () => {
      const { stub, http } = await setup((request, res) => {
        if (request.path.endsWith('/order/estimate')) {
          res.writeHead(302, { location: '/elsewhere' });
          return res.end();
        }
        json(res, 200, {});
      });
      expect(await http.send('priceEstimate', estimate, scope())).toEqual({ ok: false, failure: { kind: 'malformed', status: 302 } });
      expect(stub.requests.map((r) => r.path)).toEqual(['/prefix/order/order/estimate']);
    });

    // The request id, language and client address it forwards are tested at the gateway
    // (headers.test.ts, trusted-proxies.test.ts).
    it('sends the contract path and parameters and the bearer; counts the call', async () => {
      const { stub, http } = await setup((_request, res) => json(res, 200, []));
      const request = scope();
      await http.send('orderPayments', { params: { order_id: 'o 1', fee_type: 'ORDER_FEE' }, bearer: 'token-1' }, request);
      const [seen] = stub.requests;
      expect(seen).toMatchObject({
        method: 'GET',
        path: '/prefix/order/order-payments',
        query: { order_id: 'o 1', fee_type: 'ORDER_FEE' },
        authorization: 'Bearer token-1',
      });
      expect(request.budget.calls).toBe(1);
    });
  });

  describe('failures', () => {
    it('a refused connection is a network failure with its code (the retry rules read it)', async () => {
      const { stub } = await setup(() => undefined);
      const urls = stub.urls;
      await stub.close();
      const http = createUpstreamHttp({ urls, transport, timeoutMs: 1000, retries: 0, maxBodyBytes: 100_000 });
      cleanups.push(http.close);
      expect(await http.send('priceEstimate', estimate, scope())).toEqual({
        ok: false,
        failure: { kind: 'network', code: 'ECONNREFUSED' },
      });
    });

    it('a 4xx keeps its body and Retry-After for the error it becomes', async () => {
      const { http } = await setup((_request, res) => json(res, 429, { message: 'Slow down' }, { 'retry-after': '7' }));
      expect(await http.send('priceEstimate', estimate, scope())).toEqual({
        ok: false,
        failure: { kind: 'status', status: 429, body: '{"message":"Slow down"}', retryAfter: '7' },
      });
    });

    it("an answer that stops midway is a timeout, cut off at the attempt's time", async () => {
      const { http } = await setup(
        (_request, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"partial":');
        },
        { timeoutMs: 200 },
      );
      expect(await http.send('priceEstimate', estimate, scope())).toEqual({ ok: false, failure: { kind: 'timeout' } });
    });

    it('an answer without a length is cut off as soon as it passes the cap, not at its end', async () => {
      let closed = false;
      const { http } = await setup(
        (_request, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          for (let i = 0; i < 30; i++) res.write('x'.repeat(10_000));
          res.on('close', () => (closed = true));
        },
        { timeoutMs: 4000 },
      );
      expect(await http.send('priceEstimate', estimate, scope())).toEqual({ ok: false, failure: { kind: 'oversized' } });
      await vi.waitFor(() => expect(closed).toBe(true));
    });

    it('a client that goes away aborts the running call: the upstream sees its connection closed', async () => {
      const client = new AbortController();
      let closed = false;
      const { stub, http } = await setup((_request, res) => {
        res.on('close', () => (closed = true));
      });
      const pending = http.send('priceEstimate', estimate, scope(client.signal));
      await vi.waitFor(() => expect(stub.requests).toHaveLength(1));
      client.abort();
      expect(await pending).toEqual({ ok: false, failure: { kind: 'cancelled' } });
      await vi.waitFor(() => expect(closed).toBe(true));
    });
  });

  describe('connections', () => {
    // undici waits one turn of the event loop before it reuses a connection (a server may close
    // one it said it would keep), so a call made the moment the last one ended takes a second.
    it('sequential calls reuse kept-alive connections; close() leaves none open at the upstream', async () => {
      const { stub, http } = await setup((_request, res) => json(res, 200, {}));
      for (let i = 0; i < 10; i++) expect((await http.send('priceEstimate', estimate, scope())).ok).toBe(true);
      expect(stub.connections().opened).toBeLessThanOrEqual(2);
      for (let i = 0; i < 5; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        await http.send('priceEstimate', estimate, scope());
      }
      expect(stub.connections().opened).toBeLessThanOrEqual(2);
      expect(stub.requests).toHaveLength(15);
      http.close();
      await vi.waitFor(() => expect(stub.connections().open).toBe(0));
    });

    it("a POST sends its JSON body with its type, the client's name and what it accepts", async () => {
      const { stub, http } = await setup((_request, res) => json(res, 200, {}));
      await http.send('login', { json: { username: 'u', password: 'p' } }, scope());
      const [seen] = stub.requests;
      expect(seen).toMatchObject({ method: 'POST', path: '/prefix/auth/auth/login', body: '{"username":"u","password":"p"}' });
      expect(seen!.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'order-graph', accept: 'application/json' });
    });
  });

  describe('hostile parameters', () => {
    // The ids of an upstream answer that no call may carry are tested at the gateway
    // (upstream-contract.test.ts); an empty id never gets that far (the order list that holds one is refused).
    it('an empty path segment is never sent', async () => {
      const { stub, http } = await setup((_request, res) => json(res, 200, {}));
      expect(await http.send('shippingAddresses', { params: { order_id: '' }, bearer: 't' }, scope())).toEqual({
        ok: false,
        failure: { kind: 'unsendable' },
      });
      expect(stub.requests).toHaveLength(0);
    });
  });
});

describe.each(['undici', 'got'] as const)('the gateway with UPSTREAM_CLIENT=%s', (upstreamClient) => {
  it('answers the whole order with all its upstream calls, over the transport it was given', async () => {
    const simulator = await startSimulator();
    const gateway = await startGateway({ upstreamUrls: simulator.urls, upstreamClient });
    cleanups.push(simulator.close, gateway.close);
    const { data, errors } = await execute(
      graphqlClient(gateway.endpoint, await demoToken(simulator, 'ready@demo.test')),
      WholeOrderDocument,
    );
    expect(errors).toEqual([]);
    expect(data?.me?.orders?.[0]?.vehicle?.vin).toMatch(/\w{17}/);
    expect(simulator.requestLog).toHaveLength(ONE_ORDER_CALLS);
  });
});
