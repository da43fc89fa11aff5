// Tokens and credentials at the gateway, against the simulator: no upstream call without a
// usable token, tokens the upstream refuses, and login and refreshTokens.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LoginDocument, OrderSummaryDocument, RefreshTokensDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { demoCustomer } from '../helpers/demo.js';
import { execute, startHarness, type Harness } from '../helpers/harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());
beforeEach(() => harness.simulator.clearLog());

const customer = (username: string) => demoCustomer(harness.simulator, username);

describe('without a usable token, no upstream call', () => {
  it('no Authorization header: UNAUTHENTICATED on me, orders and order', async () => {
    const whole = await execute(harness.client(), WholeOrderDocument);
    expect(whole.data?.me).toBeNull();
    expect(whole.errors.map((e) => [e.path, e.extensions?.code])).toEqual([[['me'], 'UNAUTHENTICATED']]);
    const summary = await execute(harness.client(), OrderSummaryDocument);
    expect(summary.data?.orders).toBeNull();
    expect(summary.errors[0]!.extensions?.code).toBe('UNAUTHENTICATED');
    const byId = await harness.client().rawRequest('{ order(id: "x") { id } }');
    expect(byId.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(harness.simulator.requestLog).toEqual([]);
  });

  it('a malformed Authorization header counts as none', async () => {
    const client = harness.client();
    client.setHeader('authorization', 'Token abc');
    const { errors } = await execute(client, WholeOrderDocument);
    expect(errors[0]!.extensions?.code).toBe('UNAUTHENTICATED');
    expect(harness.simulator.requestLog).toEqual([]);
  });

  it('an expired JWT: UNAUTHENTICATED, saying so', async () => {
    const expired = await harness.simulator.issueAccessToken(customer('ready@demo.test').userId, { expiresInSeconds: -60 });
    harness.simulator.clearLog();
    const { data, errors } = await execute(harness.client(expired), WholeOrderDocument);
    expect(data?.me).toBeNull();
    expect(errors).toHaveLength(1);
    expect(errors[0]!.extensions?.code).toBe('UNAUTHENTICATED');
    expect(errors[0]!.message).toMatch(/expired/);
    expect(errors[0]!.message).not.toContain(expired);
    expect(harness.simulator.requestLog).toEqual([]);
  });
});

describe('tokens the upstream refuses', () => {
  it('a forged JWT is refused upstream: UNAUTHENTICATED with the operation and status 401', async () => {
    const forged = await new SignJWT({ sub: customer('ready@demo.test').userId })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not-the-simulator-secret-0123456789'));
    const { data, errors } = await execute(harness.client(forged), OrderSummaryDocument);
    expect(data?.orders).toBeNull();
    expect(errors[0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED', operation: 'orderDetails', upstreamStatus: 401 });
    expect(JSON.stringify(errors)).not.toContain(forged);
  });
});

describe('login and refreshTokens', () => {
  it('login returns a token set with DateTime expirations about 24 h ahead', async () => {
    const { username, password } = customer('production@demo.test');
    const { data, errors } = await execute(harness.client(), LoginDocument, { username, password });
    expect(errors).toEqual([]);
    const expiresIn = Date.parse(data!.login.accessTokenExpiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(23.9 * 3600_000);
    expect(expiresIn).toBeLessThanOrEqual(24 * 3600_000);
    expect(data!.login.accessTokenExpiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(data!.login.refreshToken.length).toBeGreaterThan(20);
  });

  it('a wrong password: UNAUTHENTICATED, data null, the password nowhere in the answer', async () => {
    const response = await execute(harness.client(), LoginDocument, { username: 'ready@demo.test', password: 'wrong-password-123' });
    expect(response.data).toBeNull();
    expect(response.errors[0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED', operation: 'login', upstreamStatus: 401 });
    expect(JSON.stringify(response)).not.toContain('wrong-password-123');
  });

  it('an empty username is BAD_USER_INPUT without an upstream call', async () => {
    const { errors } = await execute(harness.client(), LoginDocument, { username: ' ', password: 'x' });
    expect(errors[0]!.extensions?.code).toBe('BAD_USER_INPUT');
    expect(harness.simulator.requestLog).toEqual([]);
  });

  it('refreshTokens renews with the refresh token alone, and the old refresh token then stops working', async () => {
    const { username, password } = customer('ready@demo.test');
    const login = (await execute(harness.client(), LoginDocument, { username, password })).data!.login;
    const renewed = await execute(harness.client(), RefreshTokensDocument, { refreshToken: login.refreshToken });
    expect(renewed.errors).toEqual([]);
    expect(renewed.data!.refreshTokens.refreshToken).not.toBe(login.refreshToken);
    const whole = await execute(harness.client(renewed.data!.refreshTokens.accessToken), WholeOrderDocument);
    expect(whole.data?.me?.id).toBe(customer('ready@demo.test').userId);

    const again = await execute(harness.client(), RefreshTokensDocument, { refreshToken: login.refreshToken });
    expect(again.data).toBeNull();
    expect(again.errors[0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED', operation: 'refreshTokens', upstreamStatus: 401 });
  });

  it('refreshTokens with an expired access token as the bearer still renews', async () => {
    const { username, password, userId } = customer('early@demo.test');
    const login = (await execute(harness.client(), LoginDocument, { username, password })).data!.login;
    const expired = await harness.simulator.issueAccessToken(userId, { expiresInSeconds: -60 });
    harness.simulator.clearLog();
    const renewed = await execute(harness.client(expired), RefreshTokensDocument, { refreshToken: login.refreshToken });
    expect(renewed.errors).toEqual([]);
    const [call] = harness.simulator.requestLog;
    expect(call).toMatchObject({ operation: 'refreshTokens', bearer: expired, status: 200 });
  });
});
