// The order-tracker page built from its sources (examples/order-tracker/) into a folder of the
// caller's, as npm run build builds it, its size, what its own query answers a customer, and
// the cards it shows for an order.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { TrackerOrderDocument, type TrackerOrderQuery } from '../../examples/order-tracker/src/gql/graphql.js';
import { SHOWN_ELSEWHERE } from '../../examples/order-tracker/src/query.js';
import { SELECTED_PARTS } from '../../examples/order-tracker/test/schema-order.js';
import { AVAILABLE_FROM } from '../../src/graph/order-fields.js';
import { createOrderClient } from '../../src/client/index.js';
import { notifySettings, notifyVariables } from '../../src/server/config/notifications.js';
import { offeredDemoLogins, startSimulator, type Simulator } from '../../src/simulator/server.js';
import { startGateway, type TestGateway } from './harness.js';
import { ROOT } from './process.js';

/** Builds the page with Vite (a process of its own: the build's modules stay out of the test's). */
export async function buildTrackerPage(outDir: string): Promise<string> {
  await promisify(execFile)(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn', '--outDir', outDir, '--emptyOutDir'],
    {
      cwd: join(ROOT, 'examples/order-tracker'),
      // React's production build, whatever NODE_ENV the test runner set (test).
      env: { ...process.env, NODE_ENV: 'production' },
      timeout: 120_000,
    },
  );
  return outDir;
}

/** The most JavaScript the page may ship, gzipped, in bytes (React included). */
export const TRACKER_SCRIPT_LIMIT = 150_000;

/** The page's JavaScript, in bytes and gzipped at the gateway's level (zlib's default). */
export function trackerScriptBytes(folder: string): { raw: number; gzipped: number } {
  const scripts = readdirSync(join(folder, 'assets')).filter((name) => name.endsWith('.js'));
  const bodies = scripts.map((name) => readFileSync(join(folder, 'assets', name)));
  return { raw: bodies.reduce((sum, body) => sum + body.length, 0), gzipped: bodies.reduce((sum, body) => sum + gzipSync(body).length, 0) };
}

export type TrackerOrder = NonNullable<NonNullable<TrackerOrderQuery['me']>['orders']>[number];

/** The customer's orders as the page's own query (its every deferred part) answers them, read through the SDK as the page reads it. */
export async function trackerOrders(endpoint: string, username: string, password: string): Promise<TrackerOrder[]> {
  const client = createOrderClient({ endpoint });
  await client.login(username, password);
  let last: { data: TrackerOrderQuery | null; errors: unknown[] } | undefined;
  for await (const result of client.deferred(TrackerOrderDocument)) last = result;
  if (!last?.data?.me || last.errors.length > 0)
    throw new Error(`the tracker's query failed for ${username}: ${JSON.stringify(last?.errors)}`);
  return last.data.me.orders ?? [];
}

/** The Order field an OrderPart of `Order.availability` names (VEHICLE: vehicle), from the stage table. */
export function gatedField(part: string): string {
  const field = Object.keys(AVAILABLE_FROM).find((candidate) => candidate.toUpperCase() === part);
  if (!field) throw new Error(`OrderPart ${part} names no stage-bound field of AVAILABLE_FROM`);
  return field;
}

/**
 * The cards the page shows for an order, from its availability, the schema and the page's query
 * (not from the page's code): the order record, each stage-gated part the order lists, then each
 * other object or list the query selects on Order (but those the page shows elsewhere).
 */
export function trackerCards(order: TrackerOrder): string[] {
  const gated = order.availability.map(({ part }) => gatedField(part));
  return ['order', ...gated, ...SELECTED_PARTS.filter((field) => !gated.includes(field) && !SHOWN_ELSEWHERE.includes(field))];
}

/**
 * The simulator, its demo's order moved only when a test posts to its advance URL (an hour is
 * never reached), and a gateway in front of it serving the tracker page from `trackerFolder`
 * (null: not built, its settings served all the same), offering the demo logins as npm start
 * does, polling every 300 ms, with notifications on as npm start's demo has them (a key and
 * VAPID keys made at start, e-mail printed, private addresses allowed).
 */
export async function startTrackerGateway(trackerFolder: string | null): Promise<{ simulator: Simulator; gateway: TestGateway }> {
  const simulator = await startSimulator({ advanceEveryMs: 3_600_000 });
  const gateway = await startGateway({
    upstreamUrls: simulator.urls,
    demoLogins: offeredDemoLogins(simulator.customers),
    tracker: true,
    trackerFolder,
    live: { pollIntervalMs: 300 },
    notify: notifySettings(notifyVariables.parse({}), true),
  });
  return { simulator, gateway };
}
