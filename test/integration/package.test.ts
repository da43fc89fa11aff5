// The SDK package (packages/client) as a frontend gets it: `npm pack` on a copy of the
// checkout, the tarball installed into a new project under the system's Node.js (no engine
// warning; its size and package count measured), the SDK imported with its types
// (type-checked with the strictest settings) and used against a running gateway, the schema
// and documents imported through its exports, and the `order-graph` command. And docs/sdk.md's
// two install lines, run as written from a checkout in a folder of another name.
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCustomer, demoOrders } from '../helpers/demo.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { packClient } from '../helpers/client-package.js';
import { installOffline } from '../helpers/offline-install.js';
import { checkoutCopy, PROJECT_NODE_BIN, PROJECT_PATH, ROOT } from '../helpers/process.js';

// The gateway runs in this process: commands that talk to it must not block its event loop.
const run = promisify(execFile);

let harness: Harness;
let work: string;
let tarball: string;
let files: string[];
let manifest: Awaited<ReturnType<typeof packClient>>['manifest'];
let consumer: string;
let installWarnings: string;
let systemNode: string;
const env = () => ({ PATH: PROJECT_PATH, HOME: process.env.HOME ?? work });
/** The PATH without the project's Node: the system's Node.js (Node 20 on the CI image), as a frontend developer has. */
const SYSTEM_PATH = (process.env.PATH ?? '')
  .split(':')
  .filter((dir) => dir && !dir.includes('node_modules'))
  .join(':');

beforeAll(async () => {
  harness = await startHarness({ sockets: true, gateway: { live: { pollIntervalMs: 200 } } });
  work = mkdtempSync(join(tmpdir(), 'order-graph-pack-'));
  ({ tarball, files, manifest } = await packClient(work));

  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  systemNode = (await run('node', ['--version'], { env: { PATH: SYSTEM_PATH } })).stdout.trim();
  // Offline, from npm's cache: the suite never reaches the registry.
  installWarnings = await installOffline(consumer, tarball, manifest, { path: SYSTEM_PATH });
}, 180_000);
afterAll(async () => {
  await harness?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The consumer's TypeScript errors ('' when none), from the checkout's compiler. */
function typecheck(): string {
  try {
    execFileSync(process.execPath, [join(PROJECT_NODE_BIN, '..', 'typescript', 'bin', 'tsc'), '-p', consumer], {
      cwd: consumer,
      stdio: 'pipe',
    });
    return '';
  } catch (error) {
    return String((error as { stdout: Buffer }).stdout);
  }
}

/** Every package under node_modules (scoped and nested ones too), by its folder. */
function installedPackages(modules: string): string[] {
  return readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((scoped) => `${name}/${scoped}`) : [name]))
    .flatMap((name) => {
      const nested = join(modules, name, 'node_modules');
      return [join(modules, name), ...(lstatSync(nested, { throwIfNoEntry: false })?.isDirectory() ? installedPackages(nested) : [])];
    });
}

/** The bytes of every file under a folder. */
function bytesUnder(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const path = join(entry.parentPath, entry.name);
    return sum + (entry.isDirectory() ? bytesUnder(path) : entry.isFile() ? lstatSync(path).size : 0);
  }, 0);
}

/** The commands of a doc's ```sh blocks, one a line, without their comments. */
const shellLines = (doc: string) =>
  [...readFileSync(join(ROOT, doc), 'utf8').matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((block) =>
    block[1]!.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()),
  );

describe("docs/sdk.md's install lines, as written", () => {
  it('npm run sdk:pack in a checkout of any folder name writes the tarball the install line names, and leaves the checkout clean', async () => {
    const lines = shellLines('docs/sdk.md');
    expect(lines).toContain('npm run sdk:pack');
    const installed = lines.map((line) => /^npm install (~\/\S+\.tgz)$/.exec(line)?.[1]).find(Boolean);
    expect(installed, 'docs/sdk.md installs a tarball from the home folder').toBeDefined();
    // docs/cli.md's global install names the same file.
    expect(readFileSync(join(ROOT, 'docs/cli.md'), 'utf8')).toContain(`npm install -g ${installed}`);

    // A checkout in a folder not called order-graph, under git, with a home folder of its own.
    const checkout = checkoutCopy(join(work, 'elsewhere'));
    for (const file of ['.gitignore', '.npmrc']) cpSync(join(ROOT, file), join(checkout, file));
    const git = (...args: string[]) =>
      run('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd: checkout }).then(({ stdout }) => stdout);
    await git('init', '-q');
    await git('add', '-A');
    await git('commit', '-qm', 'checkout');
    const home = join(work, 'home');
    mkdirSync(home);
    await run('npm', ['run', '-s', 'sdk:pack'], { cwd: checkout, env: { PATH: PROJECT_PATH, HOME: home }, timeout: 120_000 });

    const tarballAt = installed!.replace(/^~/, home);
    expect(existsSync(tarballAt)).toBe(true);
    const packed = JSON.parse(execFileSync('tar', ['-xzOf', tarballAt, 'package/package.json'], { encoding: 'utf8' })) as {
      name: string;
      version: string;
    };
    const { version } = JSON.parse(readFileSync(join(ROOT, 'packages/client/package.json'), 'utf8')) as { version: string };
    expect([packed.name, packed.version]).toEqual(['@order-graph/client', version]);
    expect(await git('status', '--porcelain')).toBe('');
    // The file installs as the package the tests below use (offline, from npm's cache).
    const elsewhere = join(work, 'frontend-elsewhere');
    mkdirSync(elsewhere);
    await installOffline(elsewhere, tarballAt, manifest);
    expect(readdirSync(join(elsewhere, 'node_modules', '@order-graph', 'client', 'dist', 'client'))).toContain('index.js');
  }, 180_000);
});

describe('npm pack of @order-graph/client', () => {
  it('holds the compiled SDK with its types, the CLI, the schema, the documents and the licence; no sources or tools', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/client/index.js',
        'dist/client/index.d.ts',
        'dist/cli/order.js',
        'schema.graphql',
        'documents/whole-order.graphql',
        'persisted-documents.json',
        'LICENSE',
        'package.json',
      ]),
    );
    expect(
      files.filter(
        (file) =>
          !/^(dist\/.*\.js|dist\/.*\.d\.ts|documents\/[\w-]+\.graphql|schema\.graphql|persisted-documents\.json|LICENSE|package\.json)$/.test(
            file,
          ),
      ),
    ).toEqual([]);
  });

  it(`installs without the gateway: at most 15 packages and 10 MB, and no engine warning on the system's Node.js`, () => {
    const modules = join(consumer, 'node_modules');
    const packages = installedPackages(modules).map((dir) => dir.slice(modules.length + 1));
    expect(packages.length).toBeLessThanOrEqual(15);
    expect(packages).not.toContain('graphql-yoga');
    expect(bytesUnder(modules)).toBeLessThanOrEqual(10_000_000);
    expect({ systemNode, warnings: installWarnings.split('\n').filter((line) => /EBADENGINE|engine/i.test(line)) }).toEqual({
      systemNode,
      warnings: [],
    });
    // Its own engines: any maintained Node.js (20, 22, 24), not the gateway's.
    expect(manifest.engines).toEqual({ node: '>=20' });
  });

  it('ships the schema and the operation documents through its exports', () => {
    const resolve = createRequire(join(consumer, 'main.js')).resolve;
    expect(readFileSync(resolve('@order-graph/client/schema.graphql'), 'utf8')).toBe(readFileSync(join(ROOT, 'schema.graphql'), 'utf8'));
    expect(readFileSync(resolve('@order-graph/client/documents/whole-order.graphql'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'src/client/documents/whole-order.graphql'), 'utf8'),
    );
  });

  it('another project imports @order-graph/client with its types, strictly type-checked', () => {
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'es2024', module: 'nodenext', strict: true, noEmit: true, skipLibCheck: false, types: [] },
        include: ['main.ts'],
      }),
    );
    writeFileSync(join(consumer, 'main.ts'), CONSUMER);
    expect(typecheck()).toBe('');
    // A type error is caught: the SDK's types are really there.
    writeFileSync(
      join(consumer, 'main.ts'),
      `${CONSUMER}\nconst wrong: number = (await createOrderClient({ endpoint: '' }).wholeOrder()).data!.me!.email;\n`,
    );
    expect(typecheck()).toMatch(/main\.ts\(\d+,7\): error TS2322: Type 'string \| null' is not assignable to type 'number'/);
  });

  it('the SDK works from the installed package against a running gateway: the whole order, deferred and live', async () => {
    writeFileSync(join(consumer, 'main.ts'), CONSUMER);
    const ready = demoCustomer(harness.simulator, 'ready@demo.test');
    const { stdout: output } = await run('node', ['main.ts'], {
      cwd: consumer,
      env: { ...env(), ENDPOINT: harness.endpoint, USERNAME: ready.username, PASSWORD: ready.password },
      timeout: 20_000,
    });
    const result = JSON.parse(output) as { email: string; vin: string; firstPayloadParts: string[]; payloads: number; watched: string };
    const [order] = demoOrders(harness.simulator, 'ready@demo.test');
    expect(result).toEqual({
      email: 'ready@demo.test',
      vin: expect.stringMatching(/^\w{17}$/),
      firstPayloadParts: [],
      payloads: expect.any(Number),
      watched: order!.id,
    });
    expect(result.payloads).toBeGreaterThan(1);
  });

  it(`the order-graph command is installed and runs on the system's Node.js: --json prints JSON only`, async () => {
    const ready = demoCustomer(harness.simulator, 'ready@demo.test');
    const bin = join(consumer, 'node_modules', '.bin', 'order-graph');
    expect(readdirSync(join(consumer, 'node_modules', '.bin'))).toContain('order-graph');
    const { stdout } = await run(bin, ['--username', ready.username, '--endpoint', harness.endpoint, '--json'], {
      env: { PATH: SYSTEM_PATH, HOME: process.env.HOME ?? work, ORDER_GRAPH_PASSWORD: ready.password },
      timeout: 20_000,
    });
    expect(JSON.parse(stdout).customer.email).toBe('ready@demo.test');
  });
});

// What a frontend developer writes: typed results, no casts, and no Node types (a browser
// project has none; this script declares the one global it reads).
const CONSUMER = `declare const process: { env: Record<string, string | undefined> };
import { createOrderClient, ORDER_STAGES, type WholeOrderQuery } from '@order-graph/client';

const client = createOrderClient({ endpoint: process.env.ENDPOINT ?? '' });
await client.login(process.env.USERNAME ?? '', process.env.PASSWORD ?? '');
const whole: WholeOrderQuery | null = (await client.wholeOrder()).data;
const stages: readonly string[] = ORDER_STAGES;

const payloads = [];
for await (const result of client.wholeOrderDeferred()) payloads.push(result);
const firstOrder = payloads[0]?.data?.me?.orders?.[0] ?? {};
const parts = ['vehicle', 'pickup', 'estimate', 'payments', 'tradeIn'].filter((part) => part in firstOrder);

const stop = new AbortController();
let watched = '';
for await (const event of client.watchOrders({ signal: stop.signal })) {
  watched = event.data?.orderUpdates.order.id ?? '';
  stop.abort();
}

console.log(JSON.stringify({
  email: whole?.me?.email,
  vin: whole?.me?.orders?.[0]?.vehicle?.vin,
  firstPayloadParts: stages.length === 8 ? parts : ['stages?'],
  payloads: payloads.length,
  watched,
}));
`;
