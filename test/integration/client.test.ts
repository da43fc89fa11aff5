// The SDK against a real gateway and simulator in process (logins, token renewal, typed results), and
// its live watch against a stand-in gateway that keeps ending its streams.
import { createServer, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOrderClient, OrderClientError, type Tokens } from '../../src/client/index.js';
import { demoCustomer } from '../helpers/demo.js';
import { listen, startHarness, type Harness } from '../helpers/harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());
beforeEach(() => harness.simulator.clearLog());

const customer = (username: string) => demoCustomer(harness.simulator, username);
const refreshCalls = () => harness.simulator.requestLog.filter((e) => e.operation === 'refreshTokens');

describe('createOrderClient', () => {
  it('logs in, reports the tokens, and returns typed results', async () => {
    const seen: Tokens[] = [];
    const client = createOrderClient({ endpoint: harness.endpoint, fetch: harness.fetch, onTokens: (t) => seen.push(t) });
    const { username, password, userId } = customer('two-orders@demo.test');
    const tokens = await client.login(username, password);
    expect(seen).toEqual([tokens]);
    expect(client.tokens).toBe(tokens);

    const whole = await client.wholeOrder();
    expect(whole.errors).toEqual([]);
    expect(whole.data?.me?.id).toBe(userId);
    expect(whole.data?.me?.orders?.map((o) => o.status).sort()).toEqual(['DELIVERED', 'IN_TRANSIT']);

    const summary = await client.orderSummary();
    const [first] = summary.data!.orders!;
    const byId = await client.order(first!.id);
    expect(byId.data?.order?.reservationId).toBe(first!.reservationId);
    expect((await client.order('not-mine')).data?.order).toBeNull();
    expect((await client.me()).data?.me?.email).toBe(username);
  });

  it('a failed login throws with the code, and keeps no tokens', async () => {
    const client = createOrderClient({ endpoint: harness.endpoint, fetch: harness.fetch });
    const failure = await client.login('ready@demo.test', 'wrong').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OrderClientError);
    expect((failure as OrderClientError).code).toBe('UNAUTHENTICATED');
    expect(client.tokens).toBeNull();
  });

  it('an unreachable endpoint throws NETWORK_ERROR', async () => {
    const client = createOrderClient({ endpoint: 'http://127.0.0.1:1/graphql' });
    await expect(client.login('a', 'b')).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
  });

  it('when several calls are refused at once: one refresh, every call retried, onTokens told once', async () => {
    const { username, password, userId } = customer('ready@demo.test');
    const fresh = await createOrderClient({ endpoint: harness.endpoint, fetch: harness.fetch }).login(username, password);
    const expired = await harness.simulator.issueAccessToken(userId, { expiresInSeconds: -60 });
    const seen: Tokens[] = [];
    const client = createOrderClient({
      endpoint: harness.endpoint,
      fetch: harness.fetch,
      tokens: { ...fresh, accessToken: expired },
      onTokens: (t) => seen.push(t),
    });
    harness.simulator.clearLog();

    const results = await Promise.all([
      client.wholeOrder(),
      client.orderSummary(),
      client.me(),
      client.wholeOrder(),
      client.orderSummary(),
    ]);

    for (const result of results) expect(result.errors).toEqual([]);
    expect(results[0]!.data?.me?.orders?.[0]?.vehicle?.vin).toHaveLength(17);
    expect(refreshCalls()).toHaveLength(1);
    expect(refreshCalls()[0]!.bearer).toBe(expired);
    expect(seen).toHaveLength(1);
    expect(client.tokens?.accessToken).toBe(seen[0]!.accessToken);
    expect(client.tokens?.accessToken).not.toBe(expired);
    // Every upstream data call was made with the renewed token, none with the expired one.
    const dataCalls = harness.simulator.requestLog.filter((e) => e.operation !== 'refreshTokens');
    expect(dataCalls.length).toBeGreaterThan(0);
    expect(dataCalls.every((e) => e.bearer === seen[0]!.accessToken)).toBe(true);
  });

  it('without a refresh token, UNAUTHENTICATED comes back as it is', async () => {
    const client = createOrderClient({ endpoint: harness.endpoint, fetch: harness.fetch });
    const { data, errors } = await client.wholeOrder();
    expect(data?.me).toBeNull();
    expect(errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(refreshCalls()).toEqual([]);
  });

  it('when the refresh itself is refused, the original UNAUTHENTICATED result is returned', async () => {
    const { userId } = customer('early@demo.test');
    const expired = await harness.simulator.issueAccessToken(userId, { expiresInSeconds: -60 });
    const client = createOrderClient({
      endpoint: harness.endpoint,
      fetch: harness.fetch,
      tokens: {
        accessToken: expired,
        accessTokenExpiresAt: new Date().toISOString(),
        idToken: null,
        idTokenExpiresAt: null,
        refreshToken: 'revoked-refresh-token',
      },
    });
    const { errors } = await client.orderSummary();
    expect(errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(refreshCalls()).toHaveLength(1);
    await expect(client.refresh()).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('a refresh token handed over (releaseRefreshToken) is the live one, and the client never renews with it again', async () => {
    const { username, password, userId } = customer('early@demo.test');
    const client = createOrderClient({ endpoint: harness.endpoint, fetch: harness.fetch });
    const login = await client.login(username, password);
    // Renewed once since the login: the token handed over is the renewed one, not the login's spent one.
    const renewed = await client.refresh();
    const released = await client.releaseRefreshToken();
    expect(released).toBe(renewed.refreshToken);
    expect(released).not.toBe(login.refreshToken);
    expect(await client.releaseRefreshToken()).toBeNull();
    // A client whose access token has expired, holding a live refresh token: once handed over, it is not used.
    const expired = await harness.simulator.issueAccessToken(userId, { expiresInSeconds: -60 });
    const live = await createOrderClient({ endpoint: harness.endpoint, fetch: harness.fetch }).login(username, password);
    const refused = createOrderClient({ endpoint: harness.endpoint, fetch: harness.fetch, tokens: { ...live, accessToken: expired } });
    expect(await refused.releaseRefreshToken()).toBe(live.refreshToken);
    harness.simulator.clearLog();
    expect((await refused.orderSummary()).errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(refreshCalls()).toEqual([]);
    // Whoever it was handed to renews with it, once.
    const taker = createOrderClient({
      endpoint: harness.endpoint,
      fetch: harness.fetch,
      tokens: { ...login, accessToken: expired, refreshToken: released! },
    });
    expect((await taker.refresh()).refreshToken).not.toBe(released);
  });
});

describe('watchOrders when the gateway keeps ending its streams', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /**
   * A stand-in gateway: each subscription gets `answer` (one event then the end, or an HTTP
   * error). When the SDK sent each is noted on its side (by the fetch it is given).
   */
  async function endingGateway(answer: 'one event' | '503') {
    const subscribedAt: number[] = [];
    const noted: typeof fetch = (input, init) => {
      subscribedAt.push(Date.now());
      return fetch(input, init);
    };
    const server = createServer((request, response: ServerResponse) => {
      request.resume();
      if (answer === '503') return response.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
      const event = {
        data: { orderUpdates: { observedAt: '2026-01-01T00:00:00.000Z', changes: [], order: { id: 'o1', status: 'DELIVERED' } } },
      };
      response
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .end(`event: next\ndata: ${JSON.stringify(event)}\n\nevent: complete\ndata:\n\n`);
    });
    const endpoint = `${await listen(server)}/graphql`;
    const stop = new AbortController();
    /** Watches with the options until `stop` aborts; resolves to the results it yielded. */
    const watch = async (options: Parameters<ReturnType<typeof createOrderClient>['watchOrders']>[0] = {}) => {
      const results = [];
      for await (const result of createOrderClient({ endpoint, fetch: noted }).watchOrders({ ...options, signal: stop.signal }))
        results.push(result);
      return results;
    };
    return {
      subscribedAt,
      watch,
      gaps: () => subscribedAt.slice(1).map((at, i) => at - subscribedAt[i]!),
      async close() {
        stop.abort();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  }

  it('by default, one subscription per 30 s (the gateway’s default poll interval), not one a second', async () => {
    const gateway = await endingGateway('one event');
    const watching = gateway.watch();
    await sleep(3500);
    await gateway.close();
    const results = await watching;
    console.info(
      `SDK, default options, a gateway that ends each stream after one event: ${gateway.subscribedAt.length} subscriptions in 3.5 s`,
    );
    expect(gateway.subscribedAt).toHaveLength(1);
    expect(results).toHaveLength(1);
  });

  it('minIntervalMs: the subscriptions are at least that far apart; the state already reported is not repeated', async () => {
    const gateway = await endingGateway('one event');
    // A short backoff: the interval is what spaces them.
    const watching = gateway.watch({ minIntervalMs: 300, retryDelayMs: 50 });
    await sleep(2000);
    await gateway.close();
    const results = await watching;
    console.info(`SDK, minIntervalMs 300: ${gateway.subscribedAt.length} subscriptions in 2 s, ${gateway.gaps().join(', ')} ms apart`);
    expect(gateway.subscribedAt.length).toBeGreaterThanOrEqual(2);
    expect(gateway.subscribedAt.length).toBeLessThanOrEqual(Math.floor(2000 / 300) + 1);
    // (Slack for the SDK's own steps between starting its clock and calling fetch.)
    for (const gap of gateway.gaps()) expect(gap).toBeGreaterThanOrEqual(300 - 50);
    expect(results).toHaveLength(1);
  });

  it('streams that end without an update: the waits double from retryDelayMs', async () => {
    const gateway = await endingGateway('503');
    const watching = gateway.watch({ minIntervalMs: 0, retryDelayMs: 100 });
    for (const started = Date.now(); gateway.subscribedAt.length < 5 && Date.now() - started < 20_000;) await sleep(20);
    await gateway.close();
    await watching;
    console.info(`SDK, retryDelayMs 100, a gateway answering 503: subscriptions ${gateway.gaps().join(', ')} ms apart`);
    expect(gateway.subscribedAt.length).toBeGreaterThanOrEqual(5);
    gateway
      .gaps()
      .slice(0, 4)
      .forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(100 * 2 ** i - 50));
  });

  it('refuses an interval that is not a number of milliseconds', async () => {
    const gateway = await endingGateway('one event');
    await expect(gateway.watch({ minIntervalMs: Number.NaN })).rejects.toThrow(/minIntervalMs must be a number of milliseconds/);
    await expect(gateway.watch({ retryDelayMs: -1 })).rejects.toThrow(/retryDelayMs must be a number of milliseconds/);
    await gateway.close();
    expect(gateway.subscribedAt).toEqual([]);
  });
});
