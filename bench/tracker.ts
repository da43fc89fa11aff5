/**
 * npm run tracker:measure: the order-tracker page's figures. Its JavaScript (bytes, gzipped),
 * and in Debian's Chromium against the gateway on the simulator at 50 ms per upstream call, the
 * time from the page's order query starting to its first content (the @defer answer's first
 * payload shown) and to the whole order (the last one), as the page marks them
 * (examples/order-tracker/src/tracked-order.ts). Median of several fresh sign-ins; printed, not
 * asserted (a figure of this machine, not a property of the code).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/server/config.js';
import { createGateway } from '../src/server/gateway.js';
import { createHttpServer } from '../src/server/http-server.js';
import { startSimulator } from '../src/simulator/server.js';
import { launchChromium } from '../test/helpers/chromium.js';
import { buildTrackerPage, trackerScriptBytes } from '../test/helpers/tracker-page.js';

const LATENCY_MS = 50;
const RUNS = 7;
const CUSTOMER = 'ready@demo.test';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const folder = await buildTrackerPage(mkdtempSync(join(tmpdir(), 'tracker-measure-')));
const simulator = await startSimulator({ latencyMs: LATENCY_MS });
const demoLogins = simulator.customers
  .filter((c) => c.username === CUSTOMER)
  .map(({ username, password, description }) => ({ username, password, description }));
const settings = { ...loadConfig({}), tracing: undefined, logLevel: 'warn' as const };
const gateway = createGateway({ ...settings, upstreamUrls: simulator.urls, demoLogins, tracker: true, trackerFolder: folder });
const http = createHttpServer(gateway.yoga, { ...settings, onCut: gateway.onConnectionCut, onUpgrade: gateway.onUpgrade });
const origin = `http://127.0.0.1:${await http.listen(0, '127.0.0.1')}`;
const browser = await launchChromium();

const first: number[] = [];
const whole: number[] = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${origin}/tracker/`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForFunction(() => performance.getEntriesByName('tracker:whole-order').length > 0, undefined, { timeout: 30_000 });
    const marks = await page.evaluate(() =>
      Object.fromEntries(performance.getEntriesByType('mark').map((mark) => [mark.name, mark.startTime])),
    );
    first.push(marks['tracker:first-content']! - marks['tracker:order-asked']!);
    whole.push(marks['tracker:whole-order']! - marks['tracker:order-asked']!);
    await page.close();
  }
} finally {
  await browser.close();
  http.server.closeAllConnections();
  await new Promise((resolve) => http.server.close(resolve));
  await gateway.close();
  await simulator.close();
}
const { raw, gzipped } = trackerScriptBytes(folder);
rmSync(folder, { recursive: true, force: true });
console.log(`order tracker, JavaScript: ${raw} bytes, ${gzipped} gzipped (${(gzipped / 1024).toFixed(1)} KiB)`);
console.log(`simulator at ${LATENCY_MS} ms per call, ${RUNS} sign-ins as ${CUSTOMER}, median from the query's start:`);
console.log(`  first content (first payload): ${median(first).toFixed(0)} ms   [${first.map((ms) => ms.toFixed(0)).join(', ')}]`);
console.log(`  whole order (last payload):    ${median(whole).toFixed(0)} ms   [${whole.map((ms) => ms.toFixed(0)).join(', ')}]`);
