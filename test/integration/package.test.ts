// The packed package as another project gets it: `npm pack` on a copy of the checkout, the
// tarball installed into a new project, the SDK imported with its types (type-checked with
// the strictest settings) and used against a running gateway, and the `order-graph` command.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCustomer, demoOrders } from '../helpers/demo.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { installOffline } from '../helpers/offline-install.js';
import { checkoutCopy, PROJECT_NODE_BIN, PROJECT_PATH, ROOT } from '../helpers/process.js';

// The gateway runs in this process: commands that talk to it must not block its event loop.
const run = promisify(execFile);

let harness: Harness;
let work: string;
let tarball: string;
let files: string[];
let consumer: string;
const env = () => ({ PATH: PROJECT_PATH, HOME: process.env.HOME ?? work });

beforeAll(async () => {
  harness = await startHarness({ gateway: { live: { pollIntervalMs: 200 } } });
  work = mkdtempSync(join(tmpdir(), 'order-graph-pack-'));
  // Packing builds in a copy, not in the dist/ other tests run.
  const checkout = checkoutCopy(join(work, 'checkout'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: checkout, env: env(), timeout: 120_000 });
  const [packed] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  tarball = join(work, packed.filename);
  files = packed.files.map((file) => file.path);

  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  // Offline, from npm's cache: the suite never reaches the registry.
  await installOffline(consumer, tarball, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string> });
}, 180_000);
afterAll(async () => {
  await harness?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The consumer's TypeScript errors ('' when none), from the checkout's compiler. */
function typecheck(): string {
  try {
    execFileSync(process.execPath, [join(PROJECT_NODE_BIN, '..', 'typescript', 'bin', 'tsc'), '-p', consumer], { cwd: consumer, stdio: 'pipe' });
    return '';
  } catch (error) {
    return String((error as { stdout: Buffer }).stdout);
  }
}

describe('npm pack', () => {
  it('holds the compiled SDK with its types, the CLI, the schema and the licence; no sources, tests or tools', () => {
    expect(files).toEqual(
      expect.arrayContaining(['dist/src/client/index.js', 'dist/src/client/index.d.ts', 'dist/src/cli/order.js', 'schema.graphql', 'LICENSE', 'README.md', 'package.json']),
    );
    expect(files.filter((file) => /^(test|bench|src\/(?!tools\/require-node))|\.ts$(?<!\.d\.ts)/.test(file))).toEqual([]);
  });

  it('another project imports order-graph/client with its types, strictly type-checked', () => {
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'es2024', module: 'nodenext', strict: true, noEmit: true, skipLibCheck: false, types: [] }, include: ['main.ts'] }),
    );
    writeFileSync(join(consumer, 'main.ts'), CONSUMER);
    expect(typecheck()).toBe('');
    // A type error is caught: the SDK's types are really there.
    writeFileSync(join(consumer, 'main.ts'), `${CONSUMER}\nconst wrong: number = (await createOrderClient({ endpoint: '' }).wholeOrder()).data!.me!.email;\n`);
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
    expect(result).toEqual({ email: 'ready@demo.test', vin: expect.stringMatching(/^\w{17}$/), firstPayloadParts: [], payloads: expect.any(Number), watched: order!.id });
    expect(result.payloads).toBeGreaterThan(1);
  });

  it('the order-graph command is installed: --json prints JSON only', async () => {
    const ready = demoCustomer(harness.simulator, 'ready@demo.test');
    const bin = join(consumer, 'node_modules', '.bin', 'order-graph');
    expect(readdirSync(join(consumer, 'node_modules', '.bin'))).toContain('order-graph');
    const { stdout } = await run(bin, ['--username', ready.username, '--endpoint', harness.endpoint, '--json'], { env: { ...env(), ORDER_GRAPH_PASSWORD: ready.password }, timeout: 20_000 });
    expect(JSON.parse(stdout).customer.email).toBe('ready@demo.test');
  });
});

// What a frontend developer writes: typed results, no casts, and no Node types (a browser
// project has none; this script declares the one global it reads).
const CONSUMER = `declare const process: { env: Record<string, string | undefined> };
import { createOrderClient, ORDER_STAGES, type WholeOrderQuery } from 'order-graph/client';

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
