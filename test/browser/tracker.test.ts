// The order-tracker page as a customer meets it, in Debian's Chromium, at desktop and phone
// width, against the gateway on the simulator: sign in, the whole order with every part,
// then the demo's order moved by the simulator's own advance URL and the change shown, with
// a new entry in the history, without a reload; each part an order's stage has not reached
// saying when it comes; the page checked with axe-core and the keyboard.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AVAILABLE_FROM } from '../../src/graph/order-fields.js';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { hasReached, ORDER_STAGES } from '../../src/upstream/contract.js';
import { haveBrowser, launchChromium } from '../helpers/chromium.js';
import { demoOrders } from '../helpers/demo.js';
import { startGateway } from '../helpers/harness.js';
import { buildTrackerPage, trackerScriptBytes } from '../helpers/tracker-page.js';

const SCREENSHOTS = new URL('../../test-results/', import.meta.url);
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const READY = 'ready@demo.test';

let folder: string;
let simulator: Simulator;
let gateway: Awaited<ReturnType<typeof startGateway>>;
let browser: Browser;

beforeAll(async () => {
  folder = await buildTrackerPage(mkdtempSync(join(tmpdir(), 'tracker-page-')));
  if (!haveBrowser) return;
  // The demo's moving order, moved only when the test posts to its advance URL (an hour is never reached).
  simulator = await startSimulator({ advanceEveryMs: 3_600_000 });
  // Offered as serve.ts offers them: the customer whose order has every part first.
  const demoLogins = simulator.customers
    .map(({ username, password, description }) => ({ username, password, description }))
    .sort((a, b) => Number(b.username === READY) - Number(a.username === READY));
  gateway = await startGateway({
    upstreamUrls: simulator.urls,
    demoLogins,
    tracker: true,
    trackerFolder: folder,
    live: { pollIntervalMs: 300 },
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await simulator?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** Opens the page, counting what the browser reports: errors (CSP refusals included) and the order query's answers. */
async function open(width: number) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const problems: string[] = [];
  const deferredAnswers: string[] = [];
  page.on('console', (message) => void (message.type() === 'error' && problems.push(message.text())));
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('response', (response) => {
    const type = response.headers()['content-type'] ?? '';
    if (response.url().endsWith('/graphql') && type.startsWith('multipart/mixed')) deferredAnswers.push(type);
  });
  await page.goto(`${gateway.origin}/tracker/`, { waitUntil: 'load' });
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  return { page, problems, deferredAnswers };
}

const part = (page: Page, field: string) => page.locator(`[data-part="${field}"]`);
const events = (page: Page) => page.locator('.timeline .event').count();
const currentStage = (page: Page) => page.locator('.progress li[aria-current="step"] .label').innerText();

/** Signs in as a demo customer and waits for the whole order: every part arrived, the history read. */
async function signIn(page: Page, username: string) {
  const index = await page
    .locator('select[name="demo"] option')
    .evaluateAll((options, name) => options.findIndex((option) => option.textContent?.startsWith(`${name} `)), username);
  await page.getByLabel('Demo customer').selectOption(String(index));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.locator('.part[aria-busy="true"], .timeline[aria-busy="true"]').count(), { timeout: 30_000 }).toBe(0);
  await expect.poll(() => page.locator('.part').count()).toBe(5);
}

async function axeViolations(page: Page) {
  // Run through the DevTools protocol, so the page's CSP (no inline script) stays as it is.
  await page.evaluate(AXE);
  const violations = await page.evaluate(
    async () =>
      (
        await (
          window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }> } }
        ).axe.run()
      ).violations,
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.nodes.length})`);
}

describe.skipIf(!haveBrowser)('the order-tracker page in Chromium', () => {
  it('ships under 150 kB of JavaScript, gzipped', () => {
    const { raw, gzipped } = trackerScriptBytes(folder);
    console.info(`order tracker: ${raw} bytes of JavaScript, ${gzipped} gzipped`);
    expect(gzipped).toBeLessThan(150_000);
  });

  it.each([1280, 390])(
    'at %i px: the whole order, then a move of the demo order shown live with a new history entry, no reload',
    async (width) => {
      const { page, problems, deferredAnswers } = await open(width);
      mkdirSync(SCREENSHOTS, { recursive: true });

      await signIn(page, READY);
      const vin = simulator.data.vehicleDetails.find((vehicle) => vehicle.reservationId === 'OC-ACBDE')!.vin;
      for (const field of ['vehicle', 'pickup', 'estimate', 'payments', 'tradeIn'])
        expect(await part(page, field).getAttribute('data-state')).toBe('shown');
      expect(await part(page, 'vehicle').innerText()).toContain(vin);
      expect(await part(page, 'pickup').innerText()).toContain('Center Plus Los Angeles');
      expect(await part(page, 'estimate').innerText()).toMatch(/Paid[\s\S]*Due/);
      expect(await part(page, 'tradeIn').innerText()).toMatch(/Offer expires/);
      expect(await currentStage(page)).toBe('Ready for pickup');
      expect(await page.locator('.progress .next').innerText()).toBe('Now: Ready for pickup. Next: Delivered.');
      expect(await events(page)).toBeGreaterThan(0);
      // The order came as one streamed (@defer) answer.
      expect(deferredAnswers).toHaveLength(1);
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: new URL(`tracker-whole-order-${width}.png`, SCREENSHOTS).pathname, fullPage: true });

      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(page, simulator.moving!.username);
      await expect.poll(() => page.locator('.bar .live').innerText(), { timeout: 30_000 }).toMatch(/^Live/);
      const before = await events(page);
      const stageBefore = await currentStage(page);
      // The demo's own mechanism: the URL npm start's banner prints.
      const move = (await (await fetch(simulator.moving!.advanceUrl, { method: 'POST' })).json()) as { from: string; to: string };
      const stageName = (status: string) => status.charAt(0) + status.slice(1).toLowerCase().replaceAll('_', ' ');
      await expect
        .poll(() => page.locator('.notes').innerText(), { timeout: 30_000 })
        .toContain(`Stage: ${stageName(move.from)} → ${stageName(move.to)}`);
      await expect.poll(() => currentStage(page), { timeout: 30_000 }).toBe(stageName(move.to));
      expect(stageName(move.from)).toBe(stageBefore);
      await expect.poll(() => events(page), { timeout: 30_000 }).toBe(before + 1);
      expect(await page.locator('.timeline .event').first().innerText()).toContain(
        `Stage: ${stageName(move.from)} → ${stageName(move.to)}`,
      );
      // Still the page it was: the whole move arrived without a navigation, with one deferred answer per reading.
      expect(await page.evaluate(() => performance.getEntriesByType('navigation').length)).toBe(1);

      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: new URL(`tracker-live-${width}.png`, SCREENSHOTS).pathname, fullPage: true });
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it.each(['early@demo.test', 'confirmed@demo.test', 'production@demo.test', 'cancelled@demo.test'])(
    '%s: each part the order’s stage has not reached says from which stage (as the progress line names it), or that the order was cancelled',
    async (username) => {
      const { page, problems } = await open(1280);
      await signIn(page, username);
      const [order] = demoOrders(simulator, username);
      const labels = await page.locator('.progress li .label').allInnerTexts();
      expect(labels).toHaveLength(ORDER_STAGES.length);
      for (const [field, from] of Object.entries(AVAILABLE_FROM)) {
        const text = await part(page, field).innerText();
        if (hasReached(order!.status, from)) expect(text, field).not.toMatch(/Available from|cancelled/);
        else if (order!.status === 'CANCELLED') expect(text, field).toContain('Not for a cancelled order.');
        else expect(text, field).toContain(`Available from the “${labels[ORDER_STAGES.indexOf(from)]}” stage.`);
      }
      expect(await axeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it('signs in with the keyboard alone, its focus visible', async () => {
    const { page, problems } = await open(390);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('demo');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Sign in');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe('none');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.part').count(), { timeout: 30_000 }).toBe(5);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Sign out');
    expect(problems).toEqual([]);
    await page.close();
  });
});
