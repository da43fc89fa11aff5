// The CLI run as a customer runs it (a separate process over real HTTP): summaries, --watch, the password's sources, exit codes;
// and docs/cli.md against the command: every option and every exit code on the page.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXIT, USAGE } from '../../src/cli/options.js';
import { startSimulator } from '../../src/simulator/server.js';
import { demoCustomer, demoOrders } from '../helpers/demo.js';
import { listen, startGateway, startHarness, type Harness } from '../helpers/harness.js';
import { order, ROOT, startOrder, until, type Run } from '../helpers/order-cli.js';
import { buildDist, interruptNpmRun, PROJECT_PATH } from '../helpers/process.js';

/** Nothing listens on port 1, so connecting is refused at once. */
const NOWHERE = 'http://127.0.0.1:1/graphql';

/** Any command in the checkout, with only the given environment (npm's own settings included). */
function startProcessRun(command: string, args: string[], env: Record<string, string>): Promise<Run> {
  const child = spawn(command, args, { cwd: ROOT, env: { HOME: process.env.HOME ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ...output }));
  });
}

let harness: Harness;
const passwordOf = (username: string) => demoCustomer(harness.simulator, username).password;
/** A demo customer's run as docs/cli.md shows it: the password in ORDER_GRAPH_PASSWORD, never in the arguments. */
const as = (username: string, ...more: string[]) =>
  [['--username', username, '--endpoint', harness.endpoint, ...more], { env: { ORDER_GRAPH_PASSWORD: passwordOf(username) } }] as const;

/** A failure is one line on stderr: no stack, no password. */
function expectOneLineFailure(run: Run, code: number, pattern: RegExp, password: string) {
  expect(run.code, run.stderr).toBe(code);
  expect(run.stderr).toMatch(pattern);
  expect(run.stderr.trimEnd().split('\n')[0]).toMatch(/^order: /);
  expect(run.stderr).not.toMatch(/\n\s+at |Error:/);
  expect(run.stdout + run.stderr).not.toContain(password);
}

beforeAll(async () => {
  buildDist();
  harness = await startHarness({ sockets: true });
});
afterAll(() => harness?.close());
beforeEach(() => harness.simulator.clearFaults());

describe('--watch', () => {
  let live: Harness;
  beforeAll(async () => {
    live = await startHarness({ sockets: true, gateway: { live: { pollIntervalMs: 200 } } });
  });
  afterAll(() => live?.close());
  const liveAs = (username: string, ...more: string[]) => {
    const { password } = demoCustomer(live.simulator, username);
    return [['--username', username, '--endpoint', live.endpoint, ...more], { env: { ORDER_GRAPH_PASSWORD: password } }] as const;
  };
  const orderOf = (username: string) => demoOrders(live.simulator, username)[0]!;

  it('the summary, then one line per change until Ctrl-C, exit 0', async () => {
    const run = startOrder(...liveAs('production@demo.test', '--watch'));
    await until(() => run.output.stderr, /watching your orders/);
    const summaryLines = run.output.stdout;
    expect(summaryLines).toContain('Stage 5 of 8: in production');
    // The subscription's first events (the state just shown) print nothing.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(run.output.stdout).toBe(summaryLines);
    const moving = orderOf('production@demo.test');
    moving.status = 'IN_TRANSIT';
    await until(() => run.output.stdout, new RegExp(`\\d  ${moving.reservationId}  status: in production → in transit\n$`));
    run.child.kill('SIGINT');
    const ended = await run.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout.slice(summaryLines.length).trimEnd().split('\n')).toHaveLength(1);
  });

  it('Ctrl-C again and again until it is gone (a repeat may come as late as it likes: npm passes the terminal’s on, slowly on a busy machine): each finds a handler, exit 0', async () => {
    const run = startOrder(...liveAs('ready@demo.test', '--watch'));
    await until(() => run.output.stderr, /watching your orders/);
    let sent = 0;
    // Up to the moment it has gone: its teardown included, after it had decided on 0.
    while (run.child.exitCode === null && run.child.signalCode === null) {
      run.child.kill('SIGINT');
      sent++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const ended = await run.done;
    expect(sent).toBeGreaterThan(1);
    expect({ code: ended.code, signal: run.child.signalCode }).toEqual({ code: 0, signal: null });
  });

  it('through npm run -s order, as docs/cli.md runs it: Ctrl-C (SIGINT to the whole process group, npm passing it on too) ends watching with exit 0, nothing left running', async () => {
    const { password } = demoCustomer(live.simulator, 'ready@demo.test');
    const args = ['--username', 'ready@demo.test', '--endpoint', live.endpoint, '--watch'];
    for (const target of ['group', 'npm'] as const) {
      const ended = await interruptNpmRun({
        script: 'order',
        args,
        env: { ORDER_GRAPH_PASSWORD: password },
        ready: /watching your orders/,
        target,
      });
      expect({ target, code: ended.code, signal: ended.signal, left: ended.left }).toEqual({ target, code: 0, signal: null, left: [] });
    }
  }, 60_000);

  it('--json --watch: the whole order as JSON, then each change as one JSON line', async () => {
    const run = startOrder(...liveAs('confirmed@demo.test', '--json', '--watch'));
    await until(() => run.output.stderr, /watching your orders/);
    const moving = orderOf('confirmed@demo.test');
    moving.status = 'BUILD_LOCKED';
    await until(() => run.output.stdout, /"changes".*\n$/);
    run.child.kill('SIGTERM');
    const { code, stdout } = await run.done;
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    const event = JSON.parse(lines.at(-1)!);
    // From the poll that saw the change, or (changed before the first poll) from the status the summary showed.
    expect(event).toMatchObject({
      orderId: moving.id,
      status: 'BUILD_LOCKED',
      changes: expect.arrayContaining([{ field: 'status', from: 'ORDER_CONFIRMED', to: 'BUILD_LOCKED' }]),
    });
    expect(JSON.parse(lines.slice(0, -1).join('\n')).orders[0].id).toBe(moving.id);
  });

  it('--watch-interval: when the gateway keeps ending its streams (it is stopping), it subscribes again no sooner, backing off', async () => {
    const simulator = await startSimulator({ latencyMs: 0 });
    const gateway = await startGateway({ upstreamUrls: simulator.urls, live: { pollIntervalMs: 200 } });
    const { password } = demoCustomer(simulator, 'ready@demo.test');
    const run = startOrder(['--username', 'ready@demo.test', '--endpoint', gateway.endpoint, '--watch', '--watch-interval', '0.5'], {
      env: { ORDER_GRAPH_PASSWORD: password },
    });
    try {
      await until(() => run.output.stderr, /watching your orders/);
      // Every subscription has the upstream check its caller first.
      const subscriptions = (since: number) =>
        simulator.requestLog.filter((entry) => entry.operation === 'customerDetails' && entry.at >= since).length;
      // The first stream is in the hub once the hub polls (the summary's own order list was the first call).
      await until(() => String(simulator.requestLog.filter((entry) => entry.operation === 'orderDetails').length), /^([2-9]|\d{2,})$/);
      const drainedAt = Date.now();
      void gateway.drain();
      await new Promise((resolve) => setTimeout(resolve, 5000));
      const again = subscriptions(drainedAt);
      console.info(`order --watch --watch-interval 0.5, the gateway draining (each stream ended at once): ${again} subscriptions in 5 s`);
      // After the stream that had updates: 1 s; after each that had none, twice the wait before.
      expect(again).toBeGreaterThanOrEqual(1);
      expect(again).toBeLessThanOrEqual(2);
      expect(run.output.stderr).toMatch(/could not check for changes just now \(INTERNAL_SERVER_ERROR\); still watching/);
    } finally {
      run.child.kill('SIGINT');
      await run.done;
      await gateway.close();
      await simulator.close();
    }
  }, 30_000);

  it('--watch-interval must be a number of seconds', async () => {
    const run = await order(...liveAs('ready@demo.test', '--watch', '--watch-interval', 'soon'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^order: --watch-interval must be a number of seconds from 0.1 to 86400\n/);
  });
});

describe('exit 0', () => {
  it('ready@demo.test: the VIN, stage 7 of 8 and the pickup centre', async () => {
    const run = await order(...as('ready@demo.test'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    const orderIds = new Set(demoOrders(harness.simulator, 'ready@demo.test').map((o) => o.id));
    const vehicle = harness.simulator.data.vehicleDetails.find((v) => orderIds.has(v.orderId!));
    expect(vehicle?.vin).toBeTruthy();
    expect(run.stdout).toContain(vehicle!.vin);
    expect(run.stdout).toContain('Stage 7 of 8: ready for pickup');
    expect(run.stdout).toMatch(/Pickup {6}\S/);
    expect(run.stdout).toMatch(/Amount due {2}[\d,]+\.\d{2} USD/);
    expect(run.stdout).not.toContain(passwordOf('ready@demo.test'));
  });

  it('early@demo.test: says the vehicle is not available yet', async () => {
    const run = await order(...as('early@demo.test'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Stage 1 of 8: reserved');
    expect(run.stdout).toMatch(/Vehicle +not available yet/);
    expect(run.stdout).not.toContain(passwordOf('early@demo.test'));
  });

  it('no-orders@demo.test: says there are none', async () => {
    const run = await order(...as('no-orders@demo.test'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('You have no orders yet.');
  });

  it('--json: parses, and holds the order id', async () => {
    const run = await order(...as('ready@demo.test', '--json'));
    expect(run.code, run.stderr).toBe(0);
    const upstreamOrder = demoOrders(harness.simulator, 'ready@demo.test')[0]!;
    const parsed = JSON.parse(run.stdout) as { customer: { email: string }; orders: Array<{ id: string }>; errors: unknown[] };
    expect(parsed.customer.email).toBe('ready@demo.test');
    expect(parsed.orders.map((o) => o.id)).toEqual([upstreamOrder.id]);
    expect(parsed.errors).toEqual([]);
    expect(parsed).not.toHaveProperty('customer.orders');
    expect(run.stdout).not.toContain(passwordOf('ready@demo.test'));
  });

  it('one failing field is said on its line; the command still succeeds', async () => {
    harness.simulator.setFault('nearestPickupCenter', '500');
    const run = await order(...as('ready@demo.test'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Pickup +could not be loaded right now \(UPSTREAM_ERROR\)/);
    expect(run.stdout).toContain('Stage 7 of 8');
  });

  it('takes the endpoint from ORDER_GRAPH_ENDPOINT', async () => {
    const username = 'ready@demo.test';
    const run = await order(['--username', username], {
      env: { ORDER_GRAPH_ENDPOINT: harness.endpoint, ORDER_GRAPH_PASSWORD: passwordOf(username) },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Stage 7 of 8');
  });

  it('--help: the usage on stdout, with where the password comes from and every option', async () => {
    const run = await order(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: order-graph --username/);
    expect(run.stdout).toContain('$ORDER_GRAPH_PASSWORD');
    for (const option of [
      '--endpoint',
      '--json',
      '--watch ',
      '--watch-interval',
      '--watch-timeout <s>',
      '--max-answer-mb <MiB>',
      '--password',
    ])
      expect(run.stdout).toContain(option);
  });
});

describe('the password: from the environment, a prompt or stdin, not the command line', () => {
  it('ORDER_GRAPH_PASSWORD: logs in, and the password is in no argument of the process (what ps shows) and no output', async () => {
    const password = passwordOf('ready@demo.test');
    const run = startOrder(...as('ready@demo.test', '--watch'));
    try {
      await until(() => run.output.stderr, /watching your orders/);
      const commandLine = readFileSync(`/proc/${run.child.pid}/cmdline`, 'utf8');
      expect(commandLine).toContain('--username\0ready@demo.test');
      expect(commandLine).not.toContain(password);
      expect(run.output.stdout).toContain('Stage 7 of 8');
    } finally {
      run.child.kill('SIGINT');
    }
    const ended = await run.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout + ended.stderr).not.toContain(password);
  });

  it.each([
    ['a line', '\n'],
    ['a CR LF line', '\r\n'],
  ])(
    'one line on stdin (printf ... | order-graph), %s: logs in, and nothing after that line is read as the password',
    async (_what, end) => {
      const password = passwordOf('ready@demo.test');
      const run = await order(['--username', 'ready@demo.test', '--endpoint', harness.endpoint], {
        stdin: `${password}${end}not-the-password${end}`,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toContain('Stage 7 of 8');
    },
  );

  it('--password still works, with a one-line warning that others can read it', async () => {
    const password = passwordOf('ready@demo.test');
    const run = await order(['--username', 'ready@demo.test', '--password', password, '--endpoint', harness.endpoint]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /^order: warning: --password can be read by other users of this machine \(ps\).*; use ORDER_GRAPH_PASSWORD or the prompt\n$/,
    );
    expect(run.stdout).toContain('Stage 7 of 8');
    expect(run.stdout + run.stderr).not.toContain(password);
  });

  it("npm run order with the password in the environment (as docs/cli.md shows): npm's debug log does not hold it", async () => {
    const logs = mkdtempSync(join(tmpdir(), 'order-npm-logs-'));
    try {
      const password = passwordOf('ready@demo.test');
      const env = { ORDER_GRAPH_PASSWORD: password, npm_config_logs_dir: logs, PATH: PROJECT_PATH };
      const run = await startProcessRun(
        'npm',
        ['run', '-s', 'order', '--', '--username', 'ready@demo.test', '--endpoint', harness.endpoint],
        env,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('Stage 7 of 8');
      const written = readdirSync(logs).map((name) => readFileSync(join(logs, name), 'utf8'));
      // The log is there, with the command's arguments, and the password is not among them.
      expect(written.join('\n')).toContain('--username');
      expect(written.join('\n')).not.toContain(password);
    } finally {
      rmSync(logs, { recursive: true, force: true });
    }
  });
});

describe('exit 2: bad arguments, with the usage on stderr', () => {
  it('no password anywhere (no ORDER_GRAPH_PASSWORD, stdin empty and not a terminal): says where one may come from', async () => {
    const run = await order(['--username', 'ready@demo.test', '--endpoint', harness.endpoint]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^order: no password: set ORDER_GRAPH_PASSWORD, type it when asked \(on a terminal\), or give it as one line on stdin\n/,
    );
    expect(run.stderr).toContain('Usage: order-graph');
    expect(run.stdout).toBe('');
  });

  it('an unknown flag', async () => {
    const run = await order(...as('ready@demo.test', '--verbose'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^order: unknown option --verbose\n/);
    expect(run.stderr).toContain('Usage: order-graph');
    expect(run.stderr).not.toContain(passwordOf('ready@demo.test'));
  });

  it('a stray value (a mistyped option name before the password) is not echoed', async () => {
    const run = await order(['--username', 'ready@demo.test', '--json', 'stray-secret-value']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^order: unexpected argument/);
    expect(run.stderr).not.toContain('stray-secret-value');
  });

  it('an endpoint that is not an http URL', async () => {
    const run = await order(['--username', 'u', '--endpoint', 'localhost:4000'], { env: { ORDER_GRAPH_PASSWORD: 'p' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^order: --endpoint must be an http/);
  });
});

describe('exit 3: authentication failed', () => {
  it('a wrong password', async () => {
    const wrong = 'not-the-password-7c1e';
    const run = await order(['--username', 'ready@demo.test', '--endpoint', harness.endpoint], { env: { ORDER_GRAPH_PASSWORD: wrong } });
    expectOneLineFailure(run, 3, /^order: login refused: .*\(UNAUTHENTICATED\)\n$/, wrong);
    expect(run.stdout).toBe('');
  });
});

describe('exit 4: service unavailable', () => {
  it('nothing listens at the endpoint', async () => {
    const run = await order(['--username', 'ready@demo.test', '--endpoint', NOWHERE], {
      env: { ORDER_GRAPH_PASSWORD: 'secret-for-nowhere' },
    });
    expectOneLineFailure(run, 4, /^order: cannot reach Order Graph at http:\/\/127\.0\.0\.1:1\/graphql/, 'secret-for-nowhere');
  });

  it('the customer and order list upstreams fail: me is null', async () => {
    harness.simulator.setFault('customerDetails', '500');
    harness.simulator.setFault('orderDetails', '500');
    const password = passwordOf('ready@demo.test');
    const run = await order(...as('ready@demo.test'));
    expectOneLineFailure(run, 4, /^order: your order details could not be loaded right now \(UPSTREAM_ERROR\)/, password);
    expect(run.stdout).toBe('');
  });

  it('me is null with --json: the errors still reach stdout', async () => {
    harness.simulator.setFault('customerDetails', '500');
    harness.simulator.setFault('orderDetails', '500');
    const run = await order(...as('ready@demo.test', '--json'));
    expect(run.code, run.stderr).toBe(4);
    const parsed = JSON.parse(run.stdout) as { customer: unknown; orders: unknown; errors: Array<{ extensions: { code: string } }> };
    expect(parsed.customer).toBeNull();
    expect(parsed.orders).toBeNull();
    expect(parsed.errors.map((e) => e.extensions.code)).toContain('UPSTREAM_ERROR');
  });

  it('only the order list fails: nothing to show about the orders', async () => {
    harness.simulator.setFault('orderDetails', '500');
    const run = await order(...as('ready@demo.test'));
    expectOneLineFailure(run, 4, /^order: your orders could not be loaded right now \(UPSTREAM_ERROR\)/, passwordOf('ready@demo.test'));
  });

  it('the login upstream fails', async () => {
    harness.simulator.setFault('login', '500');
    const run = await order(...as('ready@demo.test'));
    expectOneLineFailure(run, 4, /^order: Order Graph cannot log you in right now \(UPSTREAM_ERROR\)/, passwordOf('ready@demo.test'));
  });

  it('the endpoint answers 5xx that is not GraphQL (a proxy in front of a stopped gateway)', async () => {
    const proxy = createServer((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
    });
    const url = `${await listen(proxy)}/graphql`;
    try {
      const run = await order(['--username', 'ready@demo.test', '--endpoint', url], { env: { ORDER_GRAPH_PASSWORD: 'secret-for-proxy' } });
      expectOneLineFailure(run, 4, /^order: Order Graph at .* is unavailable right now \(HTTP 502\)/, 'secret-for-proxy');
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
  });

  it('the endpoint is not a GraphQL endpoint', async () => {
    const notGraphql = harness.endpoint.replace(/\/graphql$/, '/nothing-here');
    const run = await order(['--username', 'ready@demo.test', '--endpoint', notGraphql], {
      env: { ORDER_GRAPH_PASSWORD: 'secret-for-404' },
    });
    expectOneLineFailure(run, 4, /did not answer as a GraphQL endpoint \(HTTP 404/, 'secret-for-404');
  });
});

describe('docs/cli.md', () => {
  const page = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
  /** The page's prose: what it explains, its sample commands and output left out. */
  const prose = page.replace(/^```[\s\S]*?^```$/gm, '');

  it('names every option of the usage text', () => {
    const options = [...USAGE.matchAll(/^ {2}(?:-h, )?(--[a-z-]+)/gm)].map((match) => match[1]!);
    expect(options).toEqual(expect.arrayContaining(['--username', '--watch', '--history', '--max-answer-mb', '--password', '--help']));
    expect(options.filter((option) => !new RegExp(`(?<![\\w-])${option}(?![\\w-])`).test(prose))).toEqual([]);
  });

  it('lists every exit code the command uses, once', () => {
    const listed = [...page.matchAll(/^\| `(\d+)` \|/gm)].map((match) => Number(match[1]));
    expect(listed.sort((a, b) => a - b)).toEqual(Object.values(EXIT).sort((a, b) => a - b));
  });
});
