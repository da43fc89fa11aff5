// The order-tracker page from its sources on Vite's development server, as a developer runs
// it (`npm run tracker:dev`, in a copy of the checkout so the test may change the page's
// sources), in front of a real gateway named by GATEWAY_URL, in Debian's Chromium: the page's
// settings and everything it sends the gateway (the sign-in, the deferred query, the live
// updates' stream) passed on, so a demo customer signs in, sees the order and a move of it
// live; the page wired to Vite's hot reload (its client loaded, its socket connected), and a
// change to its stylesheet and to a component shown in the open page without a reload, still
// signed in; Ctrl-C leaves nothing.
import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Simulator } from '../../src/simulator/server.js';
import { haveBrowser, launchChromium } from '../helpers/chromium.js';
import { demoOrders } from '../helpers/demo.js';
import type { TestGateway } from '../helpers/harness.js';
import { checkoutCopy, interruptNpmRun, killStarted, startProcess } from '../helpers/process.js';
import { startTrackerGateway } from '../helpers/tracker-page.js';

let simulator: Simulator;
let gateway: TestGateway;
let copy: string;
/** Where the development server serves the page. */
let pageUrl: string;
let browser: Browser;
/** The development server's process: its output is shown when a test fails. */
let dev: ReturnType<typeof startProcess>;

beforeAll(async () => {
  if (!haveBrowser) return;
  // The page is not built: the development server needs no build, and the gateway tells the page its settings all the same.
  ({ simulator, gateway } = await startTrackerGateway(null));
  copy = checkoutCopy(mkdtempSync(join(tmpdir(), 'tracker-dev-')));
  // GATEWAY_URL as the gateway's banner prints its address (the GraphQL URL: its origin is what counts).
  // DEBUG: Vite's account of each update it sends, printed should a hot-reload test fail.
  dev = startProcess(
    'npm',
    ['run', 'tracker:dev'],
    { HOME: process.env.HOME ?? '', GATEWAY_URL: gateway.endpoint, DEBUG: 'vite:hmr' },
    copy,
    { group: true },
  );
  pageUrl = (await dev.output(/Local:\s+(http:\/\/\S+\/tracker\/)/, 60_000))[1]!;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  killStarted();
  await gateway?.close();
  await simulator?.close();
  if (copy) rmSync(copy, { recursive: true, force: true });
});

/** Opens the page from the development server, counting what the browser reports and what came through it from the gateway. */
async function open() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  const answers: string[] = [];
  // Vite's client says on the console what it applied ("[vite] hot updated: …").
  const viteSaid: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
    else if (message.text().includes('[vite]')) viteSaid.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('response', (response) => {
    if (response.url() === new URL('/graphql', pageUrl).href) answers.push((response.headers()['content-type'] ?? '').split(';')[0]!);
  });
  const hmr = { connected: false };
  page.on('websocket', (socket) => {
    if (socket.url().startsWith(new URL('/tracker/', pageUrl.replace(/^http/, 'ws')).href))
      socket.on('framereceived', ({ payload }) => void (String(payload).includes('"type":"connected"') && (hmr.connected = true)));
  });
  const client = page.waitForResponse(new URL('/tracker/@vite/client', pageUrl).href);
  await page.goto(pageUrl, { waitUntil: 'load' });
  expect((await client).status()).toBe(200);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  return { page, problems, answers, hmr, viteSaid };
}

/** Signs in as a demo customer (the settings came through: the demo customers are offered) and waits for the order's heading. */
async function signIn(page: Page, username: string) {
  const index = await page
    .locator('select[name="demo"] option')
    .evaluateAll((options, name) => options.findIndex((option) => option.textContent?.startsWith(`${name} `)), username);
  expect(index).toBeGreaterThanOrEqual(0);
  await page.getByLabel('Demo customer').selectOption(String(index));
  await page.getByRole('button', { name: 'Sign in' }).click();
  const [order] = demoOrders(simulator, username);
  await page.getByRole('heading', { level: 2, name: order!.reservationId }).waitFor({ timeout: 30_000 });
  await expect.poll(() => page.locator('.part[aria-busy="true"], .timeline[aria-busy="true"]').count(), { timeout: 30_000 }).toBe(0);
}

describe.skipIf(!haveBrowser)('npm run tracker:dev: the page from its sources, in front of the gateway at GATEWAY_URL', () => {
  it('a demo customer signs in through it and sees the order, streamed (@defer), then a move of it live', async () => {
    const { page, problems, answers } = await open();
    await signIn(page, simulator.moving!.username);
    // The order as one streamed answer, the gateway's, through the development server.
    expect(answers).toContain('multipart/mixed');
    await expect.poll(() => page.locator('.bar .live').innerText(), { timeout: 30_000 }).toMatch(/^Live/);
    expect(answers).toContain('text/event-stream');
    const move = (await (await fetch(simulator.moving!.advanceUrl, { method: 'POST' })).json()) as { from: string; to: string };
    const stageName = (status: string) => status.charAt(0) + status.slice(1).toLowerCase().replaceAll('_', ' ');
    await expect
      .poll(() => page.locator('.notes').innerText(), { timeout: 30_000 })
      .toContain(`Stage: ${stageName(move.from)} → ${stageName(move.to)}`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("hot reload: Vite's client on the page, its socket connected; a change to the stylesheet, then to a component, shows at once, without a reload, still signed in", async () => {
    const { page, problems, hmr, viteSaid } = await open();
    onTestFailed(() =>
      console.info(
        `Vite's output:\n${dev.stdout()}${dev.stderr()}\nThe page's problems: ${problems.join('\n')}\nVite's client: ${viteSaid.join('\n')}`,
      ),
    );
    await expect.poll(() => hmr.connected).toBe(true);
    await signIn(page, 'ready@demo.test');
    // Gone with the document, were the page loaded again.
    await page.evaluate(() => Object.assign(window, { keptFromBefore: true }));
    const spacing = () =>
      page
        .locator('.order h2')
        .first()
        .evaluate((heading) => getComputedStyle(heading).letterSpacing);
    expect(await spacing()).not.toBe('3px');
    appendFileSync(join(copy, 'examples/order-tracker/src/styles.css'), '\n.order h2 { letter-spacing: 3px; }\n');
    await expect.poll(spacing, { timeout: 30_000 }).toBe('3px');
    // A component's module (React Fast Refresh: the component is replaced, its state kept).
    const next = () => page.locator('.progress .next').first().innerText();
    expect(await next()).toBe('Now: Ready for pickup. Next: Delivered.');
    const card = join(copy, 'examples/order-tracker/src/order-card.tsx');
    const source = readFileSync(card, 'utf8');
    expect(source).toContain('. Next: ${stageName(next)}.');
    // Saved whole, as editors' safe write does: written in place, the file is empty for a moment,
    // and on a loaded machine Vite has read it then (Fast Refresh: "export OrderParts removed").
    const saved = join(copy, 'order-card.tsx.saving');
    writeFileSync(saved, source.replace('. Next: ${stageName(next)}.', '. Then: ${stageName(next)}.'));
    renameSync(saved, card);
    await expect.poll(next, { timeout: 30_000 }).toBe('Now: Ready for pickup. Then: Delivered.');
    // The same document, still signed in.
    expect(await page.evaluate(() => 'keptFromBefore' in window)).toBe(true);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Ctrl-C (SIGINT to its process group) stops it, nothing left running', async () => {
    const ended = await interruptNpmRun({
      script: 'tracker:dev',
      cwd: copy,
      env: { GATEWAY_URL: gateway.origin },
      ready: /Local:\s+http/,
      target: 'group',
    });
    // Vite ends of the signal itself, as it does run on its own, and npm with it.
    expect(ended.left).toEqual([]);
  });
});
