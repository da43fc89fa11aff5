import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listen, startHarness, type Harness } from '../helpers/harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Nothing listens on port 1, so connecting is refused at once. */
const NOWHERE = 'http://127.0.0.1:1/graphql';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run order -- …` as a customer runs it: a separate process, over real HTTP. */
function order(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    if (!('ORDER_GRAPH_ENDPOINT' in env)) delete childEnv.ORDER_GRAPH_ENDPOINT;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/order.ts', ...args], { cwd: ROOT, env: childEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let harness: Harness;
const passwordOf = (username: string) => {
  const customer = harness.simulator.customers.find((c) => c.username === username);
  if (!customer) throw new Error(`no demo customer ${username}`);
  return customer.password;
};
const as = (username: string, ...more: string[]) => ['--username', username, '--password', passwordOf(username), '--endpoint', harness.endpoint, ...more];

/** A failure is one line on stderr: no stack, no password. */
function expectOneLineFailure(run: Run, code: number, pattern: RegExp, password: string) {
  expect(run.code, run.stderr).toBe(code);
  expect(run.stderr).toMatch(pattern);
  expect(run.stderr.trimEnd().split('\n')[0]).toMatch(/^order: /);
  expect(run.stderr).not.toMatch(/\n\s+at |Error:/);
  expect(run.stdout + run.stderr).not.toContain(password);
}

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness?.close());
beforeEach(() => harness.simulator.clearFaults());

describe('exit 0', () => {
  it('ready@demo.test: the VIN, stage 7 of 8 and the pickup centre', async () => {
    const run = await order(as('ready@demo.test'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    const userId = harness.simulator.customers.find((c) => c.username === 'ready@demo.test')!.userId;
    const orderIds = new Set(harness.simulator.data.orders.filter((o) => o.userId === userId).map((o) => o.id));
    const vehicle = harness.simulator.data.vehicleDetails.find((v) => orderIds.has(v.orderId));
    expect(vehicle?.vin).toBeTruthy();
    expect(run.stdout).toContain(vehicle!.vin);
    expect(run.stdout).toContain('Stage 7 of 8: ready for pickup');
    expect(run.stdout).toMatch(/Pickup {6}\S/);
    expect(run.stdout).toMatch(/Amount due {2}[\d,]+\.\d{2} USD/);
    expect(run.stdout).not.toContain(passwordOf('ready@demo.test'));
  });

  it('early@demo.test: says the vehicle is not available yet', async () => {
    const run = await order(as('early@demo.test'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Stage 1 of 8: reserved');
    expect(run.stdout).toMatch(/Vehicle +not available yet/);
    expect(run.stdout).not.toContain(passwordOf('early@demo.test'));
  });

  it('no-orders@demo.test: says there are none', async () => {
    const run = await order(as('no-orders@demo.test'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('You have no orders yet.');
  });

  it('--json: parses, and holds the order id', async () => {
    const run = await order(as('ready@demo.test', '--json'));
    expect(run.code, run.stderr).toBe(0);
    const userId = harness.simulator.customers.find((c) => c.username === 'ready@demo.test')!.userId;
    const upstreamOrder = harness.simulator.data.orders.find((o) => o.userId === userId)!;
    const parsed = JSON.parse(run.stdout) as { customer: { email: string }; orders: Array<{ id: string }>; errors: unknown[] };
    expect(parsed.customer.email).toBe('ready@demo.test');
    expect(parsed.orders.map((o) => o.id)).toEqual([upstreamOrder.id]);
    expect(parsed.errors).toEqual([]);
    expect(parsed).not.toHaveProperty('customer.orders');
    expect(run.stdout).not.toContain(passwordOf('ready@demo.test'));
  });

  it('one failing field is said on its line; the command still succeeds', async () => {
    harness.simulator.setFault('nearestPickupCenter', '500');
    const run = await order(as('ready@demo.test'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Pickup +could not be loaded right now \(UPSTREAM_ERROR\)/);
    expect(run.stdout).toContain('Stage 7 of 8');
  });

  it('takes the endpoint from ORDER_GRAPH_ENDPOINT', async () => {
    const username = 'ready@demo.test';
    const run = await order(['--username', username, '--password', passwordOf(username)], { ORDER_GRAPH_ENDPOINT: harness.endpoint });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Stage 7 of 8');
  });

  it('--help: the usage on stdout', async () => {
    const run = await order(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: npm run order -- --username/);
  });
});

describe('exit 2: bad arguments, with the usage on stderr', () => {
  it('missing --password', async () => {
    const run = await order(['--username', 'ready@demo.test', '--endpoint', harness.endpoint]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^order: missing --password\n/);
    expect(run.stderr).toContain('Usage: npm run order');
    expect(run.stdout).toBe('');
  });

  it('an unknown flag', async () => {
    const run = await order([...as('ready@demo.test'), '--verbose']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^order: unknown option --verbose\n/);
    expect(run.stderr).toContain('Usage: npm run order');
    expect(run.stderr).not.toContain(passwordOf('ready@demo.test'));
  });

  it('a stray value (a mistyped option name before the password) is not echoed', async () => {
    const run = await order(['--username', 'ready@demo.test', '--json', 'stray-secret-value']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^order: unexpected argument/);
    expect(run.stderr).not.toContain('stray-secret-value');
  });

  it('an endpoint that is not an http URL', async () => {
    const run = await order(['--username', 'u', '--password', 'p', '--endpoint', 'localhost:4000']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^order: --endpoint must be an http/);
  });
});

describe('exit 3: authentication failed', () => {
  it('a wrong password', async () => {
    const wrong = 'not-the-password-7c1e';
    const run = await order(['--username', 'ready@demo.test', '--password', wrong, '--endpoint', harness.endpoint]);
    expectOneLineFailure(run, 3, /^order: login refused: .*\(UNAUTHENTICATED\)\n$/, wrong);
    expect(run.stdout).toBe('');
  });
});

describe('exit 4: service unavailable', () => {
  it('nothing listens at the endpoint', async () => {
    const run = await order(['--username', 'ready@demo.test', '--password', 'secret-for-nowhere', '--endpoint', NOWHERE]);
    expectOneLineFailure(run, 4, /^order: cannot reach Order Graph at http:\/\/127\.0\.0\.1:1\/graphql/, 'secret-for-nowhere');
  });

  it('the customer and order list upstreams fail: me is null', async () => {
    harness.simulator.setFault('customerDetails', '500');
    harness.simulator.setFault('orderDetails', '500');
    const password = passwordOf('ready@demo.test');
    const run = await order(as('ready@demo.test'));
    expectOneLineFailure(run, 4, /^order: your order details could not be loaded right now \(UPSTREAM_ERROR\)/, password);
    expect(run.stdout).toBe('');
  });

  it('me is null with --json: the errors still reach stdout', async () => {
    harness.simulator.setFault('customerDetails', '500');
    harness.simulator.setFault('orderDetails', '500');
    const run = await order(as('ready@demo.test', '--json'));
    expect(run.code, run.stderr).toBe(4);
    const parsed = JSON.parse(run.stdout) as { customer: unknown; orders: unknown; errors: Array<{ extensions: { code: string } }> };
    expect(parsed.customer).toBeNull();
    expect(parsed.orders).toBeNull();
    expect(parsed.errors.map((e) => e.extensions.code)).toContain('UPSTREAM_ERROR');
  });

  it('only the order list fails: nothing to show about the orders', async () => {
    harness.simulator.setFault('orderDetails', '500');
    const run = await order(as('ready@demo.test'));
    expectOneLineFailure(run, 4, /^order: your orders could not be loaded right now \(UPSTREAM_ERROR\)/, passwordOf('ready@demo.test'));
  });

  it('the login upstream fails', async () => {
    harness.simulator.setFault('login', '500');
    const run = await order(as('ready@demo.test'));
    expectOneLineFailure(run, 4, /^order: Order Graph cannot log you in right now \(UPSTREAM_ERROR\)/, passwordOf('ready@demo.test'));
  });

  it('the endpoint answers 5xx that is not GraphQL (a proxy in front of a stopped gateway)', async () => {
    const proxy = createServer((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
    });
    const url = `${await listen(proxy)}/graphql`;
    try {
      const run = await order(['--username', 'ready@demo.test', '--password', 'secret-for-proxy', '--endpoint', url]);
      expectOneLineFailure(run, 4, /^order: Order Graph at .* is unavailable right now \(HTTP 502\)/, 'secret-for-proxy');
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
  });

  it('the endpoint is not a GraphQL endpoint', async () => {
    const notGraphql = harness.endpoint.replace(/\/graphql$/, '/nothing-here');
    const run = await order(['--username', 'ready@demo.test', '--password', 'secret-for-404', '--endpoint', notGraphql]);
    expectOneLineFailure(run, 4, /did not answer as a GraphQL endpoint \(HTTP 404/, 'secret-for-404');
  });
});
