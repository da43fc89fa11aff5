// Starting up, as a user and an operator meet it: several npm start at once on a stale build,
// a port or host it cannot have, .env and the logs of npm start in a checkout, the production
// install from dist/ alone, the production refusals, and the Node.js version check. Every process here is started as a separate
// command; nothing is hand-built.
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
  olderSystemNode,
  PROJECT_PATH,
  ROOT,
  startProcess,
} from '../helpers/process.js';

/** A preload that reports the young generation's size on SIGUSR2. */
const YOUNG_GENERATION_REPORT = fileURLToPath(new URL('../helpers/young-generation.mjs', import.meta.url));

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

describe('npm start in a checkout: .env, and logs for whoever reads them', () => {
  it('reads .env when there is one, the environment winning over it; without one, Node.js says so in one line', async () => {
    const copy = checkoutCopy(mkdtempSync(join(tmpdir(), 'order-graph-env-')));
    try {
      // The build of these very sources: npm start finds it current and starts it.
      cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
      writeFileSync(join(copy, '.env'), '# local settings\nGRAPHIQL=off\nLOG_LEVEL=warn\n');
      const start = async (env: Record<string, string>, banner: RegExp) => {
        const started = startProcess('npm', ['start'], env, copy);
        await started.output(banner);
        started.child.kill('SIGTERM');
        expect(await started.exited).toBe(0);
        return started.stderr();
      };
      expect(await start({}, /GraphiQL is off \(GRAPHIQL=on turns it on\)/)).not.toMatch(/not found/);
      await start({ GRAPHIQL: 'on' }, /GraphiQL: open/);
      rmSync(join(copy, '.env'));
      const stderr = await start({ LOG_LEVEL: 'warn' }, /GraphiQL: open/);
      expect(stderr.split('\n').filter((line) => line.includes('.env'))).toEqual(['.env not found. Continuing without it.']);
    } finally {
      killStarted();
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('on a terminal, in development: a readable line per log entry; on a pipe, and in production on a terminal: JSON', async () => {
    const onTerminal = (env: Record<string, string>) =>
      startProcess('script', ['-qefc', `${process.execPath} dist/src/server/main.js`, '/dev/null'], { SIMULATOR: 'on', ...env }, ROOT, {
        group: true,
      });
    /** The request log line a GraphQL request makes, as the output shows it. */
    const requestLine = async (started: ReturnType<typeof startProcess>) => {
      const [, url] = await started.output(LISTENING);
      await fetch(url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      const [line] = await started.output(/^.*"requestId".*$/m);
      return line!.replace(/\u001b\[\d+m/g, '').trim();
    };
    expect(await requestLine(onTerminal({}))).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: request \{"requestId":/);
    const onPipe = startProcess(process.execPath, ['dist/src/server/main.js'], { SIMULATOR: 'on' });
    expect(JSON.parse(await requestLine(onPipe))).toMatchObject({ level: 30, msg: 'request' });
    const inProduction = onTerminal({ NODE_ENV: 'production', ALLOWED_HOSTS: 'localhost' });
    expect(JSON.parse(await requestLine(inProduction))).toMatchObject({ level: 30, msg: 'request' });
    killStarted();
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

describe('dist/, the deployable', () => {
  it('its package.json holds what production needs and no more; its .npmrc makes npm refuse an older Node.js', () => {
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    const manifest = JSON.parse(readFileSync(join(ROOT, 'dist/package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toEqual({
      name: root.name,
      version: root.version,
      private: true,
      type: 'module',
      engines: root.engines,
      scripts: { start: 'node src/tools/start.mjs' },
      dependencies: root.dependencies,
      overrides: root.overrides,
      // bullmq's msgpackr may take a native addon, whose install script is denied: it falls back to JavaScript.
      allowScripts: { 'msgpackr-extract': false },
    });
    expect(readFileSync(join(ROOT, 'dist/.npmrc'), 'utf8')).toMatch(/^engine-strict=true$/m);
  });
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

  it('idle, as shipped (the launcher, its heap flags): the young generation start-up grew is given back before listening', async () => {
    // Start-up keeps ~30 MB, which grows the young generation to the launcher's largest (two
    // 16 MiB semi-spaces), and a process that makes no collection never shrinks it again.
    const started = startProcess(process.execPath, ['--import', YOUNG_GENERATION_REPORT, 'dist/src/tools/start.mjs'], {
      ...Object.fromEntries(HOSTS.map((name) => [name, 'http://127.0.0.1:9/'])),
      NODE_ENV: 'production',
      ALLOWED_HOSTS: 'localhost',
      LOG_LEVEL: 'warn',
    });
    await started.output(LISTENING);
    started.child.kill('SIGUSR2');
    for (let waited = 0; !/young generation: \d+/.test(started.stderr()) && waited < 5000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const young = Number(/young generation: (\d+) bytes/.exec(started.stderr())?.[1]);
    expect(young).toBeGreaterThan(0);
    expect(young).toBeLessThanOrEqual(2 * 2 ** 20);
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
    // In the order the settings' concerns are declared (src/server/config/): not the subject here.
    expect(started.stderr().trim().split('\n').sort()).toEqual([
      'config: CORS_ORIGINS must be a comma-separated list of origins such as https://app.example.com (scheme, host and port only), or *',
      'config: GRAPHIQL must be on or off',
      'config: PORT must be a whole number from 0 to 65535',
      'config: UPSTREAM_TIMEOUT_MS must be a whole number from 1 to 600000',
    ]);
  });
});

describe('Node.js version', () => {
  const systemNode = olderSystemNode;

  it.skipIf(!systemNode)(
    'a production install of dist/ on an older Node refuses before it writes anything, naming the version it needs',
    () => {
      const folder = mkdtempSync(join(tmpdir(), 'order-graph-install-'));
      try {
        cpSync(join(ROOT, 'dist'), folder, { recursive: true });
        const install = spawnSync('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], {
          cwd: folder,
          env: { PATH: systemNode!.PATH, HOME: process.env.HOME ?? folder },
          encoding: 'utf8',
        });
        expect(install.status).not.toBe(0);
        // npm's own refusal (dist/.npmrc sets engine-strict), naming the gateway and what it needs.
        expect(install.stderr).toContain('npm error code EBADENGINE');
        expect(install.stderr).toContain('Not compatible with your version of node/npm: order-graph@');
        expect(install.stderr).toContain('Required: {"node":">=24"}');
        // Nothing of the refused install is there: no node_modules/ (the install unpacks about 96 MB).
        expect(readdirSync(folder).filter((name) => name === 'node_modules')).toEqual([]);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );

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
