// Issue 18, finding 5: the per-address limits against a real gateway whose TRUSTED_PROXIES
// is a list of addresses. A client that reaches the gateway directly cannot pick its own
// address with X-Forwarded-For, and a forwarded value that is not an IP cannot switch the
// per-address limits off. (With the old hop count, `1`, 40 of 40 spoofed guesses reached
// the upstream, and streams from one address went past the per-address limit unchecked.)
import { afterEach, describe, expect, it } from 'vitest';
import { OrderUpdatesDocument } from '../../src/client/__generated__/graphql.js';
import { createOrderClient, type OrderResult } from '../../src/client/index.js';
import { createStreamTransport } from '../../src/client/streams.js';
import { startSimulator } from '../../src/simulator/server.js';
import { demoCustomer } from '../helpers/demo.js';
import { startGateway, type ResponseError } from '../helpers/harness.js';
import { json, startStubUpstream } from '../helpers/stub-upstream.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** An upstream that refuses every login (and counts them). */
async function refusingUpstream() {
  const stub = await startStubUpstream((_request, res) =>
    json(res, 401, { code: 'INVALID_CREDENTIALS', message: 'Incorrect username or password' }),
  );
  cleanups.push(stub.close);
  return stub;
}

const login = (endpoint: string, username: string, forwardedFor: string) =>
  fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({
      query: 'mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }',
      variables: { u: username, p: 'guess' },
    }),
  }).then((r) => r.json() as Promise<{ errors?: ResponseError[] }>);

describe('TRUSTED_PROXIES by address', () => {
  it('a client reaching the gateway directly spoofs X-Forwarded-For in vain: 40 guesses under 40 forwarded addresses, 20 reach the upstream', async () => {
    const stub = await refusingUpstream();
    // The Kubernetes configmap's value: the cluster's range, which the test client (127.0.0.1) is not in.
    const gateway = await startGateway({ upstreamUrls: stub.urls, trustedProxies: ['10.0.0.0/8'] });
    cleanups.push(gateway.close);
    const codes: unknown[] = [];
    // A different username each time, so only the per-address limit (20 per window) can stop them.
    for (let i = 0; i < 40; i++)
      codes.push((await login(gateway.endpoint, `victim${i}@x.test`, `198.51.100.${i + 1}`)).errors?.[0]?.extensions?.code);
    console.info(`40 spoofed X-Forwarded-For, a direct client: ${stub.requests.length} of 40 guesses reached the upstream`);
    expect(codes).toEqual([...Array(20).fill('UNAUTHENTICATED'), ...Array(20).fill('RATE_LIMITED')]);
    expect(stub.requests).toHaveLength(20);
    // The upstream is told the socket's address, not the spoofed one.
    expect(new Set(stub.requests.map((request) => request.headers['x-forwarded-for']))).toEqual(new Set(['127.0.0.1']));
  });

  it('the client is the entry the trusted proxy added (entries before it are ignored), the socket address without one; it is what the upstream is told, and one address’s flood does not throttle another', async () => {
    const stub = await refusingUpstream();
    const direct = await startGateway({ upstreamUrls: stub.urls });
    const behindOne = await startGateway({ upstreamUrls: stub.urls, trustedProxies: ['loopback'] });
    cleanups.push(direct.close, behindOne.close);
    await login(direct.endpoint, 'a@x.test', '198.51.100.1');
    await login(behindOne.endpoint, 'a@x.test', '203.0.113.9, 198.51.100.1');
    expect(stub.requests.map((request) => request.headers['x-forwarded-for'])).toEqual(['127.0.0.1', '198.51.100.1']);
    // Twenty failures from one forwarded address (the per-address limit): that address waits, another does not.
    for (let i = 0; i < 20; i++) await login(behindOne.endpoint, `u${i}@x.test`, '198.51.100.66');
    expect((await login(behindOne.endpoint, 'u0@x.test', '198.51.100.66')).errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect((await login(behindOne.endpoint, 'other@x.test', '198.51.100.77')).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('a forwarded value that is not an IP leaves the per-address stream limit on: past LIVE_STREAMS_PER_ADDRESS, RATE_LIMITED', async () => {
    const simulator = await startSimulator({ latencyMs: 0 });
    cleanups.push(simulator.close);
    const gateway = await startGateway({
      upstreamUrls: simulator.urls,
      trustedProxies: ['127.0.0.1'],
      live: { pollIntervalMs: 250, perAddress: 20 },
    });
    cleanups.push(gateway.close);
    const client = createOrderClient({ endpoint: gateway.endpoint });
    const customer = demoCustomer(simulator, 'ready@demo.test');
    await client.login(customer.username, customer.password);
    const token = client.tokens!.accessToken;

    // Behind the trusted proxy, a forwarded value that is not an IP: the proxy stands for the client.
    const forwardingNope: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-forwarded-for': 'nope' } });
    const firsts: OrderResult<unknown>[] = [];
    for (let i = 0; i < 25; i++) {
      const abort = new AbortController();
      cleanups.push(() => abort.abort());
      const stream = createStreamTransport({ endpoint: gateway.endpoint, fetch: forwardingNope, accessToken: () => token })(
        OrderUpdatesDocument,
        {},
        abort.signal,
      );
      // Each stream's first result before the next opens: admitted streams stay open meanwhile.
      const first = await stream.next();
      firsts.push(first.value as OrderResult<unknown>);
    }
    const codes = firsts.map((result) => result.errors[0]?.extensions?.code ?? 'admitted');
    console.info(
      `25 streams with X-Forwarded-For: nope behind a trusted proxy: ${codes.filter((code) => code === 'admitted').length} admitted (limit 20)`,
    );
    expect(codes).toEqual([...Array(20).fill('admitted'), ...Array(5).fill('RATE_LIMITED')]);
    expect(firsts[20]!.errors[0]!.message).toMatch(/Too many live streams from this address \(20\)/);
  });
});
