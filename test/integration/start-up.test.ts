// Starting up, as a user and an operator meet it: several npm start at once on a stale build,
// a port or host it cannot have, the production install from dist/ alone, the production
// refusals, and the Node.js version check. Every process here is started as a separate
// command; nothing is hand-built.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LoginDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { HOSTS } from '../../src/upstream/contract.js';
import { execute, graphqlClient, listen } from '../helpers/harness.js';
import {
  buildDist,
  checkoutCopy,
  killStarted,
  LISTENING,
  npmStart,
  PROJECT_NODE_BIN,
  PROJECT_PATH,
  ROOT,
  startProcess,
} from '../helpers/process.js';

beforeAll(() => {
  // The tests that start the compiled entry directly need it built (npm start builds it too).
  buildDist();
});
afterEach(killStarted);

describe('start-up', () => {
  it('three npm start at once in one checkout, with no dist/ and then a stale one: one builds, the others wait for it; every one serves', async () => {
    const copy = checkoutCopy(mkdtempSync(join(tmpdir(), 'order-graph-three-')));
    try {
      // The copy has no dist/ at first: the first round builds one, the second replaces it.
      for (let round = 0; round < 2; round++) {
        // A change to the sources makes dist/ stale: each round has a build to race over.
        appendFileSync(join(copy, 'src/server/main.ts'), `\n// round ${round}\n`);
        const three = [0, 1, 2].map(() => startProcess('npm', ['start'], { PORT: '0', LOG_LEVEL: 'warn' }, copy, { group: true }));
        const urls = await Promise.all(three.map(async (started) => (await started.output(LISTENING, 120_000))[1]!));
        for (const url of urls) expect((await fetch(`${new URL(url).origin}/healthz`)).status).toBe(200);
        expect(three.map((started) => started.stderr())).toEqual(
          three.map(() => expect.not.stringMatching(/does not provide an export|ERR_MODULE_NOT_FOUND|Error/)),
        );
        killStarted();
      }
    } finally {
      killStarted();
      rmSync(copy, { recursive: true, force: true });
    }
  });

  /** The one line a start-up that cannot listen prints, and its exit code. */
  async function failedStart(env: Record<string, string>, prefix: string[] = []) {
    const [command, ...args] = [...prefix, process.execPath, 'dist/src/server/main.js'];
    const started = startProcess(command!, args, { LOG_LEVEL: 'warn', ...env });
    const code = await started.exited;
    return { code, lines: started.stderr().trim().split('\n') };
  }

  it('a port in use: one line naming the port and PORT, exit 1, no stack', async () => {
    const taken = createServer();
    const port = Number(new URL(await listen(taken)).port);
    try {
      expect(await failedStart({ PORT: String(port) })).toEqual({
        code: 1,
        lines: [
          `Order Graph could not start: port ${port} on 127.0.0.1 is already in use: stop what listens there, or set PORT to another port (PORT=0 picks a free one).`,
        ],
      });
    } finally {
      taken.close();
    }
  });

  it('a port it may not listen on (an unprivileged user, port 80): one line, exit 1', async () => {
    expect(await failedStart({ PORT: '80' }, ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'])).toEqual({
      code: 1,
      lines: [
        'Order Graph could not start: not permitted to listen on port 80 (ports below 1024 need privileges): set PORT to 1024 or above.',
      ],
    });
  });

  it('a HOST that does not resolve, or is no address of this machine: one line each, exit 1', async () => {
    expect(await failedStart({ PORT: '0', HOST: 'no-such-host.invalid' })).toEqual({
      code: 1,
      lines: [
        'Order Graph could not start: HOST no-such-host.invalid could not be resolved: set HOST to an address or a name this machine resolves.',
      ],
    });
    expect(await failedStart({ PORT: '0', HOST: '192.0.2.1' })).toEqual({
      code: 1,
      lines: [
        'Order Graph could not start: HOST 192.0.2.1 is not an address of this machine: set HOST to one of its addresses (0.0.0.0 for all of them).',
      ],
    });
  });
});

describe('the production install docs/production.md describes', () => {
  it('dist/ alone, copied elsewhere: npm ci --omit=dev (from npm’s cache, offline), then node src/tools/start.mjs serves the whole order', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'order-graph-deploy-'));
    try {
      cpSync(join(ROOT, 'dist'), folder, { recursive: true });
      const install = spawnSync('npm', ['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund'], {
        cwd: folder,
        env: { PATH: PROJECT_PATH, HOME: process.env.HOME ?? folder },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(install.status, install.stderr).toBe(0);
      const started = startProcess(
        'node',
        ['src/tools/start.mjs'],
        { NODE_ENV: 'production', ALLOWED_HOSTS: 'localhost', SIMULATOR: 'on', PORT: '0', LOG_LEVEL: 'warn' },
        folder,
      );
      const [, url] = await started.output(LISTENING);
      const { data } = await execute(graphqlClient(url!), LoginDocument, { username: 'ready@demo.test', password: 'demo-password-4' });
      const whole = await execute(graphqlClient(url!, data!.login.accessToken), WholeOrderDocument);
      expect(whole.errors).toEqual([]);
      expect(whole.data?.me?.orders?.[0]?.vehicle?.vin).toHaveLength(17);
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('production', () => {
  it('NODE_ENV=production without the upstream refuses to start, naming the five variables', async () => {
    const started = npmStart({ NODE_ENV: 'production', ALLOWED_HOSTS: 'localhost' });
    expect(await started.exited).not.toBe(0);
    expect(started.stderr()).toContain(`config: NODE_ENV=production needs the upstream: set ${HOSTS.join(', ')}`);
    expect(started.stdout()).not.toContain('demo.test');
  });

  it('SIMULATOR=on in production: the banner says GraphiQL is off; no GraphiQL, no introspection, no suggestions', async () => {
    const started = npmStart({ NODE_ENV: 'production', ALLOWED_HOSTS: 'localhost', SIMULATOR: 'on' });
    const [, url] = await started.output(LISTENING);
    await started.output(/GraphiQL is off/);
    expect(started.stdout()).not.toContain('GraphiQL: open');
    await started.output(/Order tracker is off/);
    expect((await fetch(`${new URL(url!).origin}/tracker/`)).status).toBe(404);
    const post = (query: string) =>
      fetch(url!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) }).then(
        (r) => r.json() as Promise<any>,
      );
    const page = await fetch(url!, { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toContain('graphiql');
    expect((await post('{ __schema { types { name } } }')).errors?.[0]?.message).toMatch(/introspection/i);
    expect(JSON.stringify(await post('{ ordrs { id } }'))).not.toMatch(/Did you mean/);
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
  });

  it('with some upstream URLs: refuses to start, naming the missing ones, exit 1', async () => {
    const started = startProcess('node', ['dist/src/server/main.js'], { AUTH_URL: 'http://a.test', ORDER_URL: 'http://o.test' });
    expect(await started.exited).toBe(1);
    expect(started.stderr()).toContain('APPOINTMENT_URL, PRICE_CALCULATOR_URL, TRADE_IN_URL missing');
  });

  it('with invalid values: one line per problem, exit 1', async () => {
    const started = startProcess('node', ['dist/src/server/main.js'], {
      PORT: 'http',
      UPSTREAM_TIMEOUT_MS: '-5',
      GRAPHIQL: 'sometimes',
      CORS_ORIGINS: 'null',
    });
    expect(await started.exited).toBe(1);
    expect(started.stderr().trim().split('\n')).toEqual([
      'config: PORT must be a whole number from 0 to 65535',
      'config: UPSTREAM_TIMEOUT_MS must be a whole number from 1 to 600000',
      'config: CORS_ORIGINS must be a comma-separated list of origins such as https://app.example.com (scheme, host and port only), or *',
      'config: GRAPHIQL must be on or off',
    ]);
  });
});

describe('Node.js version', () => {
  // The machine's own node, when it is older than the project's (it is Node 20 here).
  const systemNode = (() => {
    try {
      const path = execFileSync('sh', ['-c', 'command -v node'], {
        env: {
          PATH: (process.env.PATH ?? '')
            .split(':')
            .filter((dir) => dir !== PROJECT_NODE_BIN)
            .join(':'),
        },
        encoding: 'utf8',
      }).trim();
      const major = Number(execFileSync(path, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim());
      return major < 24 ? { path, major } : null;
    } catch {
      return null;
    }
  })();

  it.skipIf(!systemNode)('a production install on an older Node refuses, naming the version it needs', () => {
    const folder = mkdtempSync(join(tmpdir(), 'order-graph-install-'));
    try {
      cpSync(join(ROOT, 'dist'), folder, { recursive: true });
      const install = spawnSync('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], {
        cwd: folder,
        env: { PATH: `${dirname(systemNode!.path)}:/usr/bin:/bin`, HOME: process.env.HOME ?? folder },
        encoding: 'utf8',
      });
      expect(install.status).not.toBe(0);
      expect(install.stderr).toContain(`order-graph needs Node.js 24 or newer; this is Node.js ${systemNode!.major}.`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it.skipIf(!systemNode).each(['dist/src/server/main.js', 'dist/src/tools/start.mjs'])(
    '%s on an older Node exits 1 with one line naming the version it needs',
    async (entry) => {
      const started = startProcess(systemNode!.path, [entry], { SIMULATOR: 'on' });
      expect(await started.exited).toBe(1);
      expect(started.stderr().trim().split('\n')).toEqual([
        expect.stringMatching(new RegExp(`^Order Graph needs Node\\.js 24 or newer; this is Node\\.js ${systemNode!.major}\\.`)),
      ]);
    },
  );
});
