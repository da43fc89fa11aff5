import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { startGateway } from '../helpers/harness.js';

// Debian's chromium (.ci/run installs it). On a developer machine without it the test is
// skipped with that reason; in CI (CI=true) a missing browser is a failure.
const CHROMIUM = '/usr/bin/chromium';
const haveBrowser = existsSync(CHROMIUM) || !!process.env.CI;
const SCREENSHOTS = new URL('../../test-results/', import.meta.url);

let simulator: Simulator;
let gateway: Awaited<ReturnType<typeof startGateway>>;
let browser: Browser;

beforeAll(async () => {
  if (!haveBrowser) return;
  simulator = await startSimulator();
  const ready = simulator.customers.find((c) => c.username === 'ready@demo.test')!;
  gateway = await startGateway({ upstreamUrls: simulator.urls, demoLogin: { username: ready.username, password: ready.password } });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await simulator?.close();
});

describe.skipIf(!haveBrowser)(`GraphiQL in Chromium (${CHROMIUM})`, () => {
  it('logs in, sets the Authorization header, runs the whole-order query and shows the VIN', async () => {
    // Tall enough for the editor to render the whole result, not only its first screen.
    const page = await browser.newPage({ viewport: { width: 1400, height: 9000 } });
    const offline: string[] = [];
    page.on('request', (request) => {
      // Everything must come from the gateway itself (blob: and data: are the page's own workers).
      if (!/^(http:\/\/127\.0\.0\.1:|blob:|data:)/.test(request.url())) offline.push(request.url());
    });
    await page.goto(gateway.endpoint, { waitUntil: 'load', timeout: 60_000 });
    await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
    const response = page.locator('.graphiql-response');
    const selectedTab = () => page.locator('.graphiql-tab[aria-selected="true"]').innerText();
    const tab = async (name: string, operation: string) => {
      // The tabs sit in a drag-to-reorder list that takes a synthetic pointer press for a
      // drag in headless Chromium; a click event selects the tab as a person's click does.
      await page.locator(`button[title="${name}"]`).dispatchEvent('click');
      // The editor switches documents after the tab does: wait for both before running.
      await expect.poll(selectedTab).toBe(name);
      const editor = async () => (await page.locator('.graphiql-query-editor').innerText()).replace(/\s+/g, ' ');
      await expect.poll(editor).toContain(`${operation} ${name}`);
    };

    const responseText = async () => (await response.innerText()).replace(/\s+/g, '');
    /**
     * Runs the selected tab until its answer holds `expected`. GraphiQL takes the operation
     * name from the editor after a debounce: on a loaded machine the first run after a tab
     * switch can still name the previous tab's operation ("Cannot infer operation"). A
     * person would press run again; so does this, a few times at most.
     */
    const run = async (expected: string) => {
      for (let attempt = 0; attempt < 5; attempt++) {
        await page.locator('.graphiql-execute-button').click();
        await expect.poll(responseText, { timeout: 20_000 }).toMatch(new RegExp(`${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|Cannotinferoperation`));
        if ((await responseText()).includes(expected)) return;
        await page.waitForTimeout(200);
      }
      throw new Error(`GraphiQL never ran the selected tab: ${await responseText()}`);
    };

    expect(await selectedTab()).toBe('WholeOrder');

    await tab('Login', 'mutation');
    await run('"accessToken":"');
    const token = (await responseText()).match(/"accessToken":"([^"]+)"/)![1]!;

    await tab('WholeOrder', 'query');
    await page.getByText('Headers', { exact: true }).click();
    await page.locator('.graphiql-editor-tool .graphiql-editor').last().click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${token}` }));

    const vin = simulator.data.vehicleDetails.find((v) => v.reservationId === 'OC-ACBDE')!.vin;
    await run(`"vin":"${vin}"`);
    expect(await response.innerText()).not.toContain('"errors"');

    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.screenshot({ path: new URL('graphiql-whole-order.png', SCREENSHOTS).pathname });
    expect(offline).toEqual([]);
  });
});
