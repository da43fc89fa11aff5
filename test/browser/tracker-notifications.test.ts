// The tracker's notifications in Debian's Chromium, against the gateway on the simulator with
// notifications on as npm start's demo has them. The service worker (/tracker/sw.js) shows a
// message pushed to it through the DevTools protocol (ServiceWorker.deliverPushMessage: the
// browser's own push event, no push service involved), a malformed one as the generic notice,
// and a click on it goes to the tracker. The panel: e-mail and a webhook added, listed, tested
// and removed, the webhook's secret shown once; "Notify me" with the permission granted through
// the DevTools protocol (Browser.grantPermissions) up to PushManager.subscribe, which headless
// Chromium offline cannot do (no push service): the page says so, and sends nothing; and with
// PushManager.subscribe alone stood in for (answering as with a push service on this machine),
// the page's subscription taken by the gateway and its test message carried by the gateway's
// sender, that push service and DevTools to the worker, which shows it (docs/tracker.md#notifications
// says what is real).
import { createECDH, randomBytes, type ECDH } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page, Worker } from 'playwright-core';
import { decrypt } from 'http_ece';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERIC_NOTICE } from '../../examples/order-tracker/src/notification-message.js';
import { PUSH_PROBLEMS, SERVICE_WORKER } from '../../examples/order-tracker/src/web-push.js';
import type { Simulator } from '../../src/simulator/server.js';
import { haveBrowser, launchChromium } from '../helpers/chromium.js';
import { demoCustomer } from '../helpers/demo.js';
import { listen, type TestGateway } from '../helpers/harness.js';
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
  // Activated, not only activating: a push delivered while the worker activated was sometimes lost.
  await expect.poll(() => page.evaluate(async () => (await navigator.serviceWorker.ready).active?.state)).toBe('activated');
  await expect.poll(() => registrations.find((r) => r.scopeURL === tracker() && !r.isDeleted)).toBeTruthy();
  const { registrationId } = registrations.find((r) => r.scopeURL === tracker() && !r.isDeleted)!;
  const push = (data: string, shows: (notifications: Shown[]) => boolean) => deliverPush(page, cdp, registrationId, data, shows);
  return { page, push };
}

/**
 * Delivers `data` to the worker of `page`'s registration, and once more if `shows` is not true
 * of the shown notifications within 5 s: DevTools' delivery lost about one message in ten here
 * (the worker running and activated; 3 of some 30 deliveries over five runs, none twice in a
 * row). Sent again, a message is what a push service's retry would bring: the same, same tag.
 */
async function deliverPush(page: Page, cdp: CDPSession, registrationId: string, data: string, shows: (notifications: Shown[]) => boolean) {
  const deliver = () => cdp.send('ServiceWorker.deliverPushMessage', { origin: gateway.origin, registrationId, data });
  await deliver();
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (shows(await shown(page))) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await deliver();
}

interface Shown {
  title: string;
  body: string;
  tag: string;
  url: string | undefined;
}

/** The notifications the tracker's service worker shows now: title, body, tag and where a click leads. */
const shown = (page: Page): Promise<Shown[]> =>
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
        (list) => list.some((n) => n.tag === 'chg_one'),
      );
      await expect
        .poll(() => shown(page))
        .toEqual([
          { title: 'Order OC-ACBDE: in transit', body: 'Status: In production → In transit', tag: 'chg_one', url: `${tracker()}?order=1` },
        ]);
      // The same change delivered again (a retry) replaces its notification: still one.
      await push(JSON.stringify({ title: 'Order OC-ACBDE: in transit', body: 'again', url: '/tracker/', key: 'chg_one' }), (list) =>
        list.some((n) => n.body === 'again'),
      );
      await expect.poll(async () => (await shown(page)).map((n) => [n.tag, n.body])).toEqual([['chg_one', 'again']]);
    } finally {
      await context.close();
    }
  });

  it('a message that is not the expected JSON still shows: "Your order changed", leading to the tracker; another origin\'s link is not followed', async () => {
    const context = await notifyingContext();
    try {
      const { page, push } = await openWithWorker(context);
      await push('not json at all', (list) => list.length > 0);
      await push(JSON.stringify({ title: 'Phish', body: 'click', url: 'https://evil.example/', key: 'chg_two' }), (list) =>
        list.some((n) => n.tag === 'chg_two'),
      );
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
      // The worker's globals (the test's compiler settings are a window's).
      const scope = self as unknown as { registration: ServiceWorkerRegistration; dispatchEvent(event: Event): boolean };
      const { NotificationEvent } = self as unknown as {
        NotificationEvent: new (type: string, init: { notification: Notification }) => Event;
      };
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
      await push(JSON.stringify({ title: 'Order moved', body: 'b', url: '/tracker/', key: 'chg_three' }), (list) => list.length > 0);
      await expect.poll(async () => (await shown(page)).length).toBe(1);
      const [worker] = context.serviceWorkers();
      expect(await click(worker!)).toEqual({ outcome: 'InvalidAccessError: Not allowed to focus a window.', left: 0 });
      await push(JSON.stringify({ title: 'Order moved', body: 'b', url: '/tracker/', key: 'chg_four' }), (list) => list.length > 0);
      await expect.poll(async () => (await shown(page)).length).toBe(1);
      // No tracker tab open: it opens one.
      await page.goto('about:blank');
      expect(await click(worker!)).toEqual({ outcome: 'InvalidAccessError: Not allowed to open a window.', left: 0 });
    } finally {
      await context.close();
    }
  });
});

/** The page signed in as a demo customer, its notifications panel read. */
async function signedIn(context: BrowserContext, username: string) {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(tracker(), { waitUntil: 'load' });
  // The form comes with the page's settings, after the load.
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  const index = await page
    .locator('select[name="demo"] option')
    .evaluateAll((options, name) => options.findIndex((option) => option.textContent?.startsWith(`${name} `)), username);
  await page.getByLabel('Demo customer').selectOption(String(index));
  await page.getByRole('button', { name: 'Sign in' }).click();
  const panel = page.getByRole('region', { name: 'Notifications' });
  await expect.poll(() => panel.innerText(), { timeout: 30_000 }).toContain('A message when your order moves');
  return { page, panel, problems };
}

/** axe-core's findings on the whole page, of every impact (run through the DevTools protocol: the page's CSP stays as it is). */
async function axeViolations(page: Page) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(
    async () =>
      (
        await (
          window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }> } }
        ).axe.run()
      ).violations,
  );
  return violations.map((violation) => `${violation.id} (${violation.impact}, ${violation.nodes.length})`);
}

/** The targets the panel lists: channel, state and text. */
const listed = (page: Page) =>
  page
    .locator('li.target')
    .evaluateAll((items) =>
      items.map((item) => [
        item.getAttribute('data-channel'),
        item.getAttribute('data-state'),
        (item as HTMLElement).innerText.split('\n')[0],
      ]),
    );

/**
 * A push service on this machine: takes what the gateway's Web Push sender posts, decrypts it
 * with the browser's keys (RFC 8291, http_ece) as only the browser can, and hands the text to
 * the browser through `forward` (DevTools' deliverPushMessage: what a push service's own
 * connection to the browser does).
 */
async function localPushService(browserKey: ECDH, auth: string) {
  const received: string[] = [];
  let forward: ((plain: string) => Promise<unknown>) | null = null;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const plain = decrypt(Buffer.concat(chunks), { version: 'aes128gcm', privateKey: browserKey, authSecret: auth }).toString('utf8');
        received.push(plain);
        void forward?.(plain).catch(() => undefined);
        response.writeHead(201).end();
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  const origin = await listen(server);
  return {
    origin,
    received,
    forward: (to: (plain: string) => Promise<unknown>) => void (forward = to),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const refreshCalls = () => simulator.requestLog.filter((entry) => entry.operation === 'refreshTokens').length;

describe('the notifications panel against the gateway', { skip: !haveBrowser, timeout: 90_000 }, () => {
  it("e-mail and a webhook added and listed, the refresh token handed over once; the webhook's secret shown once; tested, then removed", async () => {
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gateway.origin });
    try {
      const { page, panel, problems } = await signedIn(context, 'ready@demo.test');
      const email = demoCustomer(simulator, 'ready@demo.test').username;
      expect(await listed(page)).toEqual([]);
      expect(await panel.innerText()).toContain('No messages are sent to you yet.');
      const renewals = refreshCalls();

      await panel.getByRole('button', { name: 'E-mail me' }).click();
      await expect.poll(() => listed(page)).toEqual([['EMAIL', 'active', expect.stringMatching(/^E-mail\s+r\S*@demo\.test$/)]]);
      expect(await panel.getByRole('status').first().innerText()).toMatch(/^Messages will go to r\S*@demo\.test\.$/);
      // The full address is the account's, never shown: the gateway hides part of it.
      expect(await panel.innerText()).not.toContain(email);
      // The gateway proved the token by renewing with it, once.
      expect(refreshCalls()).toBe(renewals + 1);

      await panel.getByLabel('Webhook URL (for home automation)').fill('http://127.0.0.1:9/hooks/order');
      await panel.getByRole('button', { name: 'Add webhook' }).click();
      const secret = panel.getByRole('region', { name: /The signing secret of/ });
      await secret.waitFor();
      const value = await secret.locator('code').innerText();
      expect(value).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
      expect(await secret.innerText()).toContain('Copy it now: it is not shown again.');
      // The gateway kept a token: none was handed over with the webhook, none renewed.
      expect(refreshCalls()).toBe(renewals + 1);
      expect(await axeViolations(page)).toEqual([]);
      await secret.getByRole('button', { name: 'Copy secret' }).click();
      await expect.poll(() => secret.getByRole('status').innerText()).toBe('Copied.');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
      await secret.getByRole('button', { name: 'I have kept it' }).click();
      await expect.poll(() => secret.count()).toBe(0);
      expect(await page.content()).not.toContain(value);
      // The form made anew: the URL just added is gone from it.
      expect(await panel.getByLabel('Webhook URL (for home automation)').inputValue()).toBe('');
      expect(await listed(page)).toEqual([
        ['EMAIL', 'active', expect.stringMatching(/^E-mail/)],
        // The gateway shows where it points, its path left out.
        ['WEBHOOK', 'active', 'Webhook http://127.0.0.1:9/…'],
      ]);

      await panel.getByRole('button', { name: 'Send test to Webhook: http://127.0.0.1:9/…' }).click();
      await expect.poll(() => panel.getByRole('status').last().innerText()).toBe('A test message is on its way.');
      await panel.getByRole('button', { name: 'Remove Webhook: http://127.0.0.1:9/…' }).click();
      await expect.poll(() => listed(page)).toEqual([['EMAIL', 'active', expect.stringMatching(/^E-mail/)]]);
      await panel.getByRole('button', { name: /^Remove E-mail/ }).click();
      await expect.poll(() => listed(page)).toEqual([]);
      expect(await panel.getByRole('status').last().innerText()).toBe('Removed: no messages are sent to you now.');
      // The gateway let its token go with the last target, and this sign-in's was handed over: a new sign-in it takes.
      expect(await panel.innerText()).toContain('sign out and in again first');
      expect(await panel.getByRole('button', { name: 'E-mail me' }).isDisabled()).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("refusals in the gateway's words: an unverified e-mail, a URL that is no webhook's; the token kept for the next try", async () => {
    const context = await browser.newContext();
    try {
      const { page, panel } = await signedIn(context, 'early@demo.test');
      const renewals = refreshCalls();
      await panel.getByRole('button', { name: 'E-mail me' }).click();
      await expect
        .poll(() => panel.getByRole('alert').innerText())
        .toBe("The account's e-mail address is not verified: verify it with the car maker, then add e-mail again.");
      await panel.getByLabel('Webhook URL (for home automation)').fill('ftp://127.0.0.1/hook');
      await panel.getByRole('button', { name: 'Add webhook' }).click();
      await expect.poll(() => panel.getByRole('alert').innerText()).toMatch(/^url refused: the URL must start with /);
      expect(await panel.getByRole('alert').innerText()).not.toContain('ftp://');
      // Nothing was spent: the same token goes over with the next add, and is accepted.
      expect(refreshCalls()).toBe(renewals);
      await panel.getByLabel('Webhook URL (for home automation)').fill('http://127.0.0.1:9/early');
      await panel.getByRole('button', { name: 'Add webhook' }).click();
      await panel.getByRole('region', { name: /The signing secret of/ }).waitFor();
      expect(refreshCalls()).toBe(renewals + 1);
      await expect.poll(() => listed(page)).toEqual([['WEBHOOK', 'active', 'Webhook http://127.0.0.1:9/…']]);
    } finally {
      await context.close();
    }
  });

  it('Notify me, permission granted: the page installs its service worker, the push service cannot be reached offline, and the page says so, sending nothing', async () => {
    const context = await notifyingContext();
    try {
      const { page, panel } = await signedIn(context, 'production@demo.test');
      const sent: string[] = [];
      page.on('request', (request) => void (request.postData()?.includes('addWebPushTarget') && sent.push(request.postData()!)));
      await panel.getByRole('button', { name: 'Notify me' }).click();
      await expect.poll(() => panel.getByRole('alert').innerText(), { timeout: 30_000 }).toBe(PUSH_PROBLEMS.pushService);
      expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.scope)).toBe(tracker());
      expect(sent).toEqual([]);
      expect(await listed(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("Notify me with a push service on this machine: the gateway takes the page's subscription, and its test message is shown by the worker", async () => {
    const context = await notifyingContext();
    // What a push service gives the browser: an endpoint (here on this machine), and the browser's own keys (a real P-256 pair, a 16-byte secret).
    const browserKey = createECDH('prime256v1');
    const auth = randomBytes(16).toString('base64url');
    const service = await localPushService(browserKey, auth);
    try {
      const subscription = {
        endpoint: `${service.origin}/push/send/abc`,
        expirationTime: null,
        keys: { p256dh: browserKey.generateKeys().toString('base64url'), auth },
      };
      // The one stand-in in the page: PushManager.subscribe answers as with a push service, noting the key it was given.
      await context.addInitScript((json) => {
        PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
          (window as unknown as { subscribedWith: number[] }).subscribedWith = [
            ...new Uint8Array(options!.applicationServerKey as ArrayBuffer),
          ];
          return { toJSON: () => json } as unknown as PushSubscription;
        };
      }, subscription);
      const { page, panel } = await signedIn(context, 'production@demo.test');
      const cdp = await context.newCDPSession(page);
      const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
      cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
      await cdp.send('ServiceWorker.enable');
      const renewals = refreshCalls();
      await panel.getByRole('button', { name: 'Notify me' }).click();
      await expect
        .poll(() => panel.getByRole('status').last().innerText(), { timeout: 30_000 })
        .toBe('This browser will show a notification when your order moves.');
      expect(await panel.getByRole('alert').innerText()).toBe('');
      const host = new URL(service.origin).host;
      await expect.poll(() => listed(page)).toEqual([['WEB_PUSH', 'active', `Browser ${host}`]]);
      expect(refreshCalls()).toBe(renewals + 1);
      // Subscribed with the gateway's VAPID key, as the panel read it.
      const { data } = await gateway
        .client()
        .rawRequest<{ notifications: { webPushPublicKey: string } }>('{ notifications { webPushPublicKey } }');
      expect(
        Buffer.from(await page.evaluate(() => (window as unknown as { subscribedWith: number[] }).subscribedWith)).toString('base64url'),
      ).toBe(data.notifications.webPushPublicKey);

      // "Send test": the gateway's sender posts to the push service, which hands the message to the browser.
      const { registrationId } = registrations.find((r) => r.scopeURL === tracker() && !r.isDeleted)!;
      service.forward((plain) => deliverPush(page, cdp, registrationId, plain, (list) => list.length > 0));
      await panel.getByRole('button', { name: `Send test to Browser: ${host}` }).click();
      await expect.poll(() => shown(page), { timeout: 30_000 }).toHaveLength(1);
      const [message] = service.received;
      const sent = JSON.parse(message!) as { title: string; body: string; url: string; key: string };
      expect(sent.key).toMatch(/^test_/);
      expect(await shown(page)).toEqual([{ title: sent.title, body: sent.body, tag: sent.key, url: new URL(sent.url, tracker()).href }]);
    } finally {
      await context.close();
      await service.close();
    }
  });

  it('Notify me, permission refused: the page says how to allow it', async () => {
    const context = await browser.newContext();
    try {
      const { panel } = await signedIn(context, 'production@demo.test');
      await panel.getByRole('button', { name: 'Notify me' }).click();
      await expect
        .poll(() => panel.getByRole('alert').innerText(), { timeout: 30_000 })
        .toMatch(
          new RegExp(
            `^(${[PUSH_PROBLEMS.denied, PUSH_PROBLEMS.dismissed].map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`,
          ),
        );
    } finally {
      await context.close();
    }
  });
});
