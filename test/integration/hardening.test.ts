import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { startSimulator } from '../../src/simulator/server.js';
import { execute, graphqlClient, startGateway } from '../helpers/harness.js';
import { json, startStubUpstream } from '../helpers/stub-upstream.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const order = { id: 'ord-1', reservationId: 'OC-AAAAA', userId: 'u-1', status: 'READY_FOR_PICKUP' };

async function stubGateway(options: Parameters<typeof startGateway>[0] extends infer C ? Partial<C> : never = {}) {
  const stub = await startStubUpstream((request, res) => {
    if (request.path.endsWith('/v2/order/user')) return json(res, 200, [order]);
    if (request.path.endsWith('/auth/me')) return json(res, 200, { id: 'u-1' });
    return json(res, 404, {});
  });
  const gateway = await startGateway({ upstreamUrls: stub.urls, ...options });
  cleanups.push(stub.close, gateway.close);
  return { stub, gateway };
}

const post = (endpoint: string, body: object, headers: Record<string, string> = {}) =>
  fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('response headers and request ids', () => {
  it('no shared cache keeps an answer; the request id is returned and forwarded upstream with Accept-Language', async () => {
    const { stub, gateway } = await stubGateway();
    const response = await post(
      gateway.endpoint,
      { query: '{ orders { id } }' },
      { authorization: 'Bearer t', 'x-request-id': 'req-123', 'accept-language': 'de-DE, en;q=0.8' },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('vary')).toMatch(/Authorization/);
    expect(response.headers.get('x-request-id')).toBe('req-123');
    expect(stub.requests[0]!.headers['x-request-id']).toBe('req-123');
    expect(stub.requests[0]!.headers['accept-language']).toBe('de-DE, en;q=0.8');
  });

  it('a missing or unsafe X-Request-Id is replaced by a generated one, used upstream too', async () => {
    const { stub, gateway } = await stubGateway();
    const response = await post(gateway.endpoint, { query: '{ orders { id } }' }, { authorization: 'Bearer t', 'x-request-id': 'bad id\twith spaces' });
    const id = response.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(stub.requests[0]!.headers['x-request-id']).toBe(id);
  });
});

describe('health', () => {
  it('/healthz and /readyz answer, and /readyz turns 503 once draining', async () => {
    const { stub, gateway } = await stubGateway();
    const base = new URL(gateway.endpoint).origin;
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    gateway.drain();
    const draining = await fetch(`${base}/readyz`);
    expect(draining.status).toBe(503);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(stub.requests).toEqual([]);
  });
});

describe('the request deadline', () => {
  it('cuts slow upstream calls at REQUEST_DEADLINE_MS, even with a longer per-call timeout and retries', async () => {
    const simulator = await startSimulator({ latencyMs: 0 });
    cleanups.push(() => simulator.close());
    const gateway = await startGateway({ upstreamUrls: simulator.urls, upstreamTimeoutMs: 5_000, upstreamRetries: 3, requestDeadlineMs: 300 });
    cleanups.push(gateway.close);
    const ready = simulator.customers.find((c) => c.username === 'ready@demo.test')!;
    const token = await simulator.issueAccessToken(ready.userId);
    simulator.setFault('priceEstimate', 'hang');
    const started = Date.now();
    const { data, errors } = await execute(graphqlClient(gateway.endpoint, token), WholeOrderDocument);
    const elapsed = Date.now() - started;
    expect(data?.me?.orders?.[0]?.estimate).toBeNull();
    expect(data?.me?.orders?.[0]?.vehicle?.vin).toHaveLength(17);
    expect(errors.map((e) => [e.path?.at(-1), e.extensions?.code])).toEqual([['estimate', 'UPSTREAM_TIMEOUT']]);
    // Bounded by the deadline, not by 5 s × 4 attempts (a structural bound, not a speed claim).
    expect(elapsed).toBeLessThan(3_000);
  });
});

describe('production', () => {
  it('NODE_ENV=production: GraphiQL, introspection and field suggestions off', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: '0', NODE_ENV: 'production', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => child.kill('SIGKILL'));
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    for (let i = 0; i < 400 && !/GraphiQL at (\S+)/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
    const url = out.match(/GraphiQL at (\S+)/)![1]!;

    const page = await fetch(url, { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toContain('graphiql');
    const introspection = await (await post(url, { query: '{ __schema { types { name } } }' })).json();
    expect(introspection.errors?.[0]?.message).toMatch(/introspection/i);
    const suggestion = await (await post(url, { query: '{ ordrs { id } }' })).json();
    expect(JSON.stringify(suggestion)).not.toMatch(/Did you mean/);
    child.kill('SIGTERM');
  });
});

describe('graceful shutdown', () => {
  it('SIGTERM: readiness goes, an in-flight request still completes, then the process exits 0', async () => {
    const simulator = await startSimulator({ latencyMs: 400 });
    cleanups.push(() => simulator.close());
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'silent', ...simulator.urls },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => child.kill('SIGKILL'));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    for (let i = 0; i < 400 && !/GraphiQL at (\S+)/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
    const url = out.match(/GraphiQL at (\S+)/)![1]!;
    const ready = simulator.customers.find((c) => c.username === 'ready@demo.test')!;
    const token = await simulator.issueAccessToken(ready.userId);

    const inFlight = execute(graphqlClient(url, token), WholeOrderDocument);
    await new Promise((r) => setTimeout(r, 150));
    child.kill('SIGTERM');
    const { data, errors } = await inFlight;
    expect(errors).toEqual([]);
    expect(data?.me?.orders?.[0]?.vehicle?.vin).toHaveLength(17);
    expect(await exited).toBe(0);
  });
});
