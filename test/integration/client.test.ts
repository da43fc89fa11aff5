import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOrderClient, OrderClientError, type Tokens } from '../../src/client/index.js';
import { startHarness, type Harness } from '../helpers/harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());
beforeEach(() => harness.simulator.clearLog());

const customer = (username: string) => harness.simulator.customers.find((c) => c.username === username)!;
const refreshCalls = () => harness.simulator.requestLog.filter((e) => e.operation === 'refreshTokens');

describe('createOrderClient', () => {
  it('logs in, reports the tokens, and returns typed results', async () => {
    const seen: Tokens[] = [];
    const client = createOrderClient({ endpoint: harness.endpoint, onTokens: (t) => seen.push(t) });
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
    const client = createOrderClient({ endpoint: harness.endpoint });
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
    const fresh = await createOrderClient({ endpoint: harness.endpoint }).login(username, password);
    const expired = await harness.simulator.issueAccessToken(userId, { expiresInSeconds: -60 });
    const seen: Tokens[] = [];
    const client = createOrderClient({
      endpoint: harness.endpoint,
      tokens: { ...fresh, accessToken: expired },
      onTokens: (t) => seen.push(t),
    });
    harness.simulator.clearLog();

    const results = await Promise.all([client.wholeOrder(), client.orderSummary(), client.me(), client.wholeOrder(), client.orderSummary()]);

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
    const client = createOrderClient({ endpoint: harness.endpoint });
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
      tokens: { accessToken: expired, accessTokenExpiresAt: new Date().toISOString(), idToken: null, idTokenExpiresAt: null, refreshToken: 'revoked-refresh-token' },
    });
    const { errors } = await client.orderSummary();
    expect(errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(refreshCalls()).toHaveLength(1);
    await expect(client.refresh()).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});
