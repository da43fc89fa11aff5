// The order-tracker page as the gateway serves it (src/server/tracker.ts), on a build of its
// own files, and the SDK's deferred() that the page reads the order with.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrderClient } from '../../src/client/index.js';
import {
  TrackerNotificationsDocument,
  TrackerOrderDocument,
  type TrackerOrderQuery,
} from '../../examples/order-tracker/src/gql/graphql.js';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { startGateway } from '../helpers/harness.js';
import { gatedField } from '../helpers/tracker-page.js';
import { SELECTED_PARTS } from '../../examples/order-tracker/test/schema-order.js';

const HTML = '<!doctype html><title>tracker</title><script type="module" src="/tracker/assets/index-abc123.js"></script>';
const SCRIPT = 'console.log("tracker");'.repeat(50);
const WORKER = 'self.addEventListener("push", () => undefined);';

let folder: string;
let simulator: Simulator;
let on: Awaited<ReturnType<typeof startGateway>>;
let off: Awaited<ReturnType<typeof startGateway>>;
let unbuilt: Awaited<ReturnType<typeof startGateway>>;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'tracker-files-'));
  mkdirSync(join(folder, 'assets'));
  writeFileSync(join(folder, 'index.html'), HTML);
  writeFileSync(join(folder, 'assets', 'index-abc123.js'), SCRIPT);
  writeFileSync(join(folder, 'sw.js'), WORKER);
  simulator = await startSimulator();
  const demoLogins = [{ username: 'ready@demo.test', password: 'demo-password-4', description: 'everything available' }];
  on = await startGateway({
    upstreamUrls: simulator.urls,
    tracker: true,
    trackerFolder: folder,
    demoLogins,
    live: { pollIntervalMs: 1234 },
  });
  off = await startGateway({ upstreamUrls: simulator.urls, tracker: false, trackerFolder: folder });
  unbuilt = await startGateway({ upstreamUrls: simulator.urls, tracker: true, trackerFolder: null });
});

afterAll(async () => {
  await Promise.all([on?.close(), off?.close(), unbuilt?.close()]);
  await simulator?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('the tracker page on the gateway', () => {
  it('serves its page under a strict CSP with the security headers, /tracker sent to /tracker/', async () => {
    const redirect = await fetch(`${on.origin}/tracker`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([308, '/tracker/']);
    const page = await fetch(`${on.origin}/tracker/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(HTML);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';.*frame-ancestors 'none'$/,
    );
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-cache');
  });

  it('serves its assets gzipped and cached for good, and nothing that is not in its build', async () => {
    // fetch decodes the gzip it asked for: the text is the file's.
    const asset = await fetch(`${on.origin}/tracker/assets/index-abc123.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.headers.get('content-encoding')).toBe('gzip');
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await asset.text()).toBe(SCRIPT);
    const plain = await fetch(`${on.origin}/tracker/assets/index-abc123.js`, { headers: { 'accept-encoding': 'identity' } });
    expect([plain.headers.get('content-encoding'), await plain.text()]).toEqual([null, SCRIPT]);
    for (const path of ['/tracker/assets/other.js', '/tracker/%2e%2e/package.json', '/tracker/..%2fpackage.json', '/tracker/assets']) {
      expect([path, (await fetch(`${on.origin}${path}`)).status]).toEqual([path, 404]);
    }
    const post = await fetch(`${on.origin}/tracker/`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('serves its service worker at /tracker/sw.js, never cached, its scope /tracker/, under a policy of its own that allows nothing', async () => {
    const worker = await fetch(`${on.origin}/tracker/sw.js`);
    expect(worker.status).toBe(200);
    expect(await worker.text()).toBe(WORKER);
    expect(worker.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    // A browser checks a new version of the worker on each visit: a kept copy would hold an old one for good.
    expect(worker.headers.get('cache-control')).toBe('no-cache');
    expect(worker.headers.get('service-worker-allowed')).toBe('/tracker/');
    // A worker's policy is its script's: it loads nothing and asks nothing of the network.
    expect(worker.headers.get('content-security-policy')).toBe("default-src 'none'");
  });

  it('tells the page its endpoint, the demo logins, the poll interval and how to send its documents', async () => {
    expect(await (await fetch(`${on.origin}/tracker/settings.json`)).json()).toEqual({
      endpoint: '/graphql',
      pollIntervalMs: 1234,
      persistedDocuments: false,
      demo: [{ username: 'ready@demo.test', password: 'demo-password-4', description: 'everything available' }],
    });
  });

  it('is not there when TRACKER is off, and says it is not built when it is not', async () => {
    expect((await fetch(`${off.origin}/tracker/`)).status).toBe(404);
    expect((await fetch(`${off.origin}/tracker/settings.json`)).status).toBe(404);
    const missing = await fetch(`${unbuilt.origin}/tracker/`);
    expect([missing.status, await missing.text()]).toEqual([404, 'The order-tracker page is not built: npm run build builds it.\n']);
  });

  it('not built, still tells its settings: to the page from its sources on the development server (npm run tracker:dev)', async () => {
    const settings = await fetch(`${unbuilt.origin}/tracker/settings.json`);
    expect(settings.status).toBe(200);
    expect(await settings.json()).toMatchObject({ endpoint: '/graphql', demo: [] });
  });
});

describe('with TRUSTED_DOCUMENTS=only', () => {
  it("the page sends its documents by hash, and the gateway runs them: its own (in the build's manifest) and the SDK's it uses", async () => {
    const only = await startGateway({ upstreamUrls: simulator.urls, tracker: true, trackerFolder: folder, trustedDocuments: 'only' });
    try {
      expect(
        ((await (await fetch(`${only.origin}/tracker/settings.json`)).json()) as { persistedDocuments: boolean }).persistedDocuments,
      ).toBe(true);
      // The page's client, as it makes it from those settings.
      const client = createOrderClient({ endpoint: only.endpoint, persistedDocuments: true });
      await client.login('ready@demo.test', 'demo-password-4');
      const results: { data: TrackerOrderQuery | null; errors: unknown[] }[] = [];
      for await (const result of client.deferred(TrackerOrderDocument)) results.push(result);
      expect(results.at(-1)!.errors).toEqual([]);
      expect(results.at(-1)!.data!.me!.orders![0]!.vehicle?.vin).toHaveLength(17);
      // The notifications panel's documents too (this gateway has them off: the panel says so).
      const notifications = await client.request(TrackerNotificationsDocument);
      expect([notifications.errors, notifications.data?.notifications.enabled]).toEqual([[], false]);
      // Sent as text, the same document is refused.
      const asText = createOrderClient({ endpoint: only.endpoint, tokens: client.tokens });
      const refused = [];
      for await (const result of asText.deferred(TrackerOrderDocument)) refused.push(result);
      expect(refused[0]!.errors[0]!.extensions?.code).toBe('PERSISTED_QUERY_ONLY');
    } finally {
      await only.close();
    }
  });
});

describe("the SDK's deferred() with the page's own document", () => {
  it('yields the answer so far with each payload: the order records first, every part by the last', async () => {
    const client = createOrderClient({ endpoint: on.endpoint });
    await client.login('ready@demo.test', 'demo-password-4');
    const results: { data: TrackerOrderQuery | null }[] = [];
    for await (const result of client.deferred(TrackerOrderDocument)) results.push(result);
    expect(results.length).toBeGreaterThan(1);
    const firstOrder = results[0]!.data!.me!.orders![0]!;
    expect(firstOrder.reservationId).toBe('OC-ACBDE');
    expect('vehicle' in firstOrder).toBe(false);
    const lastOrder = results.at(-1)!.data!.me!.orders![0]!;
    // Each stage-gated part the order's availability lists, and every object or list the query selects (from the schema).
    expect(lastOrder.availability.length).toBeGreaterThan(0);
    for (const part of [...lastOrder.availability.map(({ part }) => gatedField(part)), ...SELECTED_PARTS])
      expect(lastOrder).toHaveProperty(part);
  });
});
