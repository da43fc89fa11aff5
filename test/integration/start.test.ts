import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { json, startStubUpstream } from '../helpers/stub-upstream.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Runs src/server/main.ts as `npm start` does, with only the given environment. */
function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const output = async (pattern: RegExp) => {
    for (let waited = 0; !pattern.test(stdout); waited += 50) {
      if (child.exitCode !== null || waited > 20_000) throw new Error(`no ${pattern} in output:\n${stdout}\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return stdout;
  };
  return { child, exited, output, stderr: () => stderr };
}

describe('npm start', () => {
  it('with no upstream: starts the simulator, prints the GraphiQL URL and the demo logins, serves the whole order, stops on SIGTERM', async () => {
    const gateway = start({ PORT: '0' });
    const banner = await gateway.output(/run WholeOrder\./);
    const url = banner.match(/GraphiQL at (http:\/\/127\.0\.0\.1:\d+\/graphql)/)![1]!;
    const logins = [...banner.matchAll(/^\s+(\S+@demo\.test)\s+(\S+)/gm)].map((m) => ({ username: m[1]!, password: m[2]! }));
    expect(logins.map((l) => l.username)).toEqual(
      expect.arrayContaining(['early@demo.test', 'confirmed@demo.test', 'production@demo.test', 'ready@demo.test', 'two-orders@demo.test']),
    );

    // GraphiQL: self-hosted (no CDN), compressed, opening on the whole order with the login
    // (pre-filled with a demo customer) in the next tab.
    const page = await fetch(url, { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-encoding')).toBe('gzip');
    const html = await page.text();
    expect(html).not.toMatch(/unpkg\.com|cdn\.jsdelivr|esm\.sh/);
    expect(html).toContain('mutation Login');
    expect(html).toContain('query WholeOrder');
    expect(html.indexOf('query WholeOrder')).toBeLessThan(html.indexOf('mutation Login'));
    expect(html).toContain('demo-password-4');

    const ready = logins.find((l) => l.username === 'ready@demo.test')!;
    const post = (query: string, variables: object, token?: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ query, variables }),
      }).then((r) => r.json() as Promise<any>);
    const login = await post('mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }', {
      u: ready.username,
      p: ready.password,
    });
    const whole = await post('{ me { orders { vehicle { vin } tradeIn { status } } } }', {}, login.data.login.accessToken);
    expect(whole.errors).toBeUndefined();
    expect(whole.data.me.orders[0].vehicle.vin).toMatch(/^[A-Z0-9]{17}$/);

    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
  });

  it('with all five upstream URLs: no simulator, no demo logins', async () => {
    const stub = await startStubUpstream((_request, res) => json(res, 200, []));
    try {
      const gateway = start({ PORT: '0', ...stub.urls });
      const banner = await gateway.output(/Upstream: /);
      expect(banner).not.toContain('demo.test');
      expect(banner).not.toContain('simulator');
      const url = banner.match(/GraphiQL at (\S+)/)![1]!;
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
        body: JSON.stringify({ query: '{ orders { id } }' }),
      }).then((r) => r.json());
      expect(response).toEqual({ data: { orders: [] } });
      expect(stub.requests.map((r) => r.path)).toEqual(['/prefix/order/v2/order/user']);
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toBe(0);
    } finally {
      await stub.close();
    }
  });

  it('with some upstream URLs: refuses to start, naming the missing ones, exit 1', async () => {
    const gateway = start({ AUTH_URL: 'http://a.test', ORDER_URL: 'http://o.test' });
    expect(await gateway.exited).toBe(1);
    expect(gateway.stderr()).toContain('APPOINTMENT_URL, PRICE_CALCULATOR_URL, TRADE_IN_URL missing');
  });

  it('with invalid values: one line per problem, exit 1', async () => {
    const gateway = start({ PORT: 'http', UPSTREAM_TIMEOUT_MS: '-5', GRAPHIQL: 'sometimes' });
    expect(await gateway.exited).toBe(1);
    const lines = gateway.stderr().trim().split('\n');
    expect(lines).toEqual([
      'config: PORT must be a whole number from 0 to 65535',
      'config: UPSTREAM_TIMEOUT_MS must be a whole number from 1 to 600000',
      'config: GRAPHIQL must be on or off',
    ]);
  });
});

