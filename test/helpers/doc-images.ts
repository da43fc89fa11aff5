// The screenshots the README and docs/ show, taken afresh: `npm run docs:images` builds the
// tracker page, starts the simulator and a gateway in front of it in this process (free ports,
// the demo customers offered as npm start offers them) and takes each image in Debian's
// Chromium, headless. Not part of the test suite: test/unit/doc-images.test.ts checks only that
// every image the docs show is one this writes. It lives beside the tests, as doc-figures.ts
// does, because it starts the gateway through the test harness.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium.js';
import { buildTrackerPage, startTrackerGateway, trackerOrders, trackerCards } from './tracker-page.js';
import { demoCustomer } from './demo.js';

const ROOT = new URL('../../', import.meta.url);
const SECONDS = 60_000;

/** The demo customer the images show: every part of an order there. */
const CUSTOMER = 'ready@demo.test';

interface Image {
  /** Where it is written, from the repository's root. */
  path: string;
  /** Takes it: the page opened, signed in as CUSTOMER, screenshot written to `file`. */
  take(browser: Browser, origin: { endpoint: string; tracker: string; cards: number }, file: string): Promise<void>;
}

/** GraphiQL signed in as the demo customer, the whole-order query run: its answer in the window. */
async function graphiql(browser: Browser, { endpoint }: { endpoint: string }, file: string) {
  // Tall while it runs, so the editor renders the whole answer; the window's height for the picture.
  const page = await browser.newPage({ viewport: { width: 1400, height: 9000 } });
  await page.goto(endpoint, { waitUntil: 'load', timeout: SECONDS });
  await page.waitForSelector('.graphiql-container', { timeout: SECONDS });
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Signed in as ${CUSTOMER}` })
    .waitFor({ timeout: SECONDS });
  await page.locator('.graphiql-execute-button').click();
  await page.locator('.graphiql-response').filter({ hasText: '"vin"' }).waitFor({ timeout: SECONDS });
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.screenshot({ path: file });
  await page.close();
}

/** The tracker page signed in as the demo customer, every card of its order arrived: the whole page. */
async function tracker(browser: Browser, { tracker, cards }: { tracker: string; cards: number }, file: string) {
  const page: Page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(tracker, { waitUntil: 'load', timeout: SECONDS });
  const index = await page
    .locator('select[name="demo"] option')
    .evaluateAll((options, name) => options.findIndex((option) => option.textContent?.startsWith(`${name} `)), CUSTOMER);
  await page.getByLabel('Demo customer').selectOption(String(index));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.timeline[aria-busy="false"]').first().waitFor({ timeout: SECONDS });
  await page.waitForFunction(
    (count) => document.querySelectorAll('.part').length === count && !document.querySelector('[aria-busy="true"]'),
    cards,
    { timeout: SECONDS },
  );
  await page.screenshot({ path: file, fullPage: true });
  await page.close();
}

/**
 * The tracker's notifications panel for the demo customer: e-mail and a webhook added, the
 * webhook's secret shown once (a secret made for this picture, by a gateway gone after it).
 */
async function notifications(browser: Browser, { tracker }: { tracker: string }, file: string) {
  const page: Page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(tracker, { waitUntil: 'load', timeout: SECONDS });
  await page.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: SECONDS });
  const index = await page
    .locator('select[name="demo"] option')
    .evaluateAll((options, name) => options.findIndex((option) => option.textContent?.startsWith(`${name} `)), CUSTOMER);
  await page.getByLabel('Demo customer').selectOption(String(index));
  await page.getByRole('button', { name: 'Sign in' }).click();
  const panel = page.getByRole('region', { name: 'Notifications' });
  await panel.getByRole('button', { name: 'E-mail me' }).click({ timeout: SECONDS });
  await panel.locator('li.target').first().waitFor({ timeout: SECONDS });
  await panel.getByLabel('Webhook URL (for home automation)').fill('http://127.0.0.1:8123/api/webhook/order', { timeout: SECONDS });
  await panel.getByRole('button', { name: 'Add webhook' }).click({ timeout: SECONDS });
  await panel.locator('li.target').nth(1).waitFor({ timeout: SECONDS });
  await panel.getByRole('region', { name: /The signing secret of/ }).waitFor({ timeout: SECONDS });
  await panel.screenshot({ path: file });
  await page.close();
}

/** Every image the docs show, and how each is taken. */
export const DOC_IMAGES: readonly Image[] = [
  { path: 'docs/images/graphiql-whole-order.png', take: graphiql },
  { path: 'docs/images/tracker-whole-order.png', take: tracker },
  { path: 'docs/images/tracker-notifications.png', take: notifications },
];

async function main() {
  const folder = await buildTrackerPage(mkdtempSync(join(tmpdir(), 'doc-images-')));
  const { simulator, gateway } = await startTrackerGateway(folder);
  const browser = await launchChromium();
  try {
    const orders = await trackerOrders(gateway.endpoint, CUSTOMER, demoCustomer(simulator, CUSTOMER).password);
    const cards = orders.reduce((sum, order) => sum + trackerCards(order).length, 0);
    const origin = { endpoint: gateway.endpoint, tracker: `${gateway.origin}/tracker/`, cards };
    for (const image of DOC_IMAGES) {
      await image.take(browser, origin, fileURLToPath(new URL(image.path, ROOT)));
      console.log(`wrote ${image.path}`);
    }
  } finally {
    await browser.close();
    await gateway.close();
    await simulator.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
