// The notifications panel (src/notifications.tsx) in each of its states, rendered to HTML; what
// it sends the gateway (src/notification-calls.ts) as the page's client sends it, to a stand-in
// for the gateway that notes each request: the refresh token handed over once, only while the
// gateway keeps none, and the push subscription's shape; and "Notify me"'s every way to fail
// (src/web-push.ts) with a stand-in for the browser's permission, worker and push service.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createOrderClient, type Tokens } from '@order-graph/client';
import type { TrackerTargetFragment } from '../src/gql/graphql';
import { notificationCalls, SIGN_IN_AGAIN, type NotificationSettings } from '../src/notification-calls';
import { NotificationsPanel, type NotificationActions, type NotificationsView } from '../src/notifications';
import { PUSH_PROBLEMS, subscribeThisBrowser, subscriptionInput, type PushBrowser } from '../src/web-push';

const SETTINGS: NotificationSettings = {
  enabled: true,
  channels: ['WEB_PUSH', 'EMAIL', 'WEBHOOK'],
  webPushPublicKey: 'BAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  pollIntervalSeconds: 300,
  maxTargets: 3,
};

const target = (id: string, fields: Partial<TrackerTargetFragment> = {}): TrackerTargetFragment => ({
  id,
  channel: 'EMAIL',
  description: 'r***@demo.test',
  createdAt: '2026-11-28T10:00:00Z',
  lastDeliveredAt: null,
  failingSince: null,
  disabledAt: null,
  disabledReason: null,
  ...fields,
});

const NONE: NotificationActions = {
  notifyMe: () => undefined,
  emailMe: () => undefined,
  addWebhook: () => undefined,
  remove: () => undefined,
  sendTest: () => undefined,
  reload: () => undefined,
  forgetSecret: () => undefined,
};

const BASE: NotificationsView = {
  settings: null,
  targets: [],
  failed: null,
  busy: null,
  problem: null,
  done: null,
  secret: null,
  needsSignIn: false,
};

/** The panel's text, and each button by its name and whether it can be pressed. */
function render(view: Partial<NotificationsView>) {
  const html = renderToStaticMarkup(<NotificationsPanel view={{ ...BASE, ...view }} actions={NONE} />);
  const plain = (part: string) =>
    part
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  return {
    html,
    text: plain(html),
    buttons: [...html.matchAll(/<button([^>]*)>([\s\S]*?)<\/button>/g)].map(
      ([, attributes, body]) => `${plain(body!)}${attributes!.includes('disabled') ? ' (disabled)' : ''}`,
    ),
  };
}

describe('the notifications panel', () => {
  it('loading, failed with a retry, and off on this gateway: each says so, nothing to add', () => {
    expect(render({}).text).toBe('Notifications Loading your notifications…');
    const failed = render({ failed: 'The gateway could not be reached: try again.' });
    expect(failed.text).toContain('Your notifications could not be loaded: The gateway could not be reached: try again.');
    expect(failed.buttons).toEqual(['Try again']);
    const off = render({ settings: { ...SETTINGS, enabled: false, channels: [] } });
    expect(off.text).toBe('Notifications Notifications are off on this gateway: this page shows changes only while it is open.');
    expect(off.buttons).toEqual([]);
  });

  it('on, with no target: the poll interval, every channel offered; a channel the gateway lacks said to be missing', () => {
    const on = render({ settings: SETTINGS });
    expect(on.text).toContain('The order is looked at every 5 minutes.');
    expect(on.text).toContain('No messages are sent to you yet.');
    expect(on.buttons).toEqual(['Notify me', 'E-mail me', 'Add webhook']);
    expect(on.html).toMatch(/<label>Webhook URL \(for home automation\)<input type="url"[^>]*name="webhook"/);
    const some = render({ settings: { ...SETTINGS, channels: ['WEBHOOK'], webPushPublicKey: null, pollIntervalSeconds: 5 } });
    expect(some.text).toContain('The order is looked at every 5 seconds.');
    expect(some.text).toContain('Browser notifications are not set up on this gateway.');
    expect(some.text).toContain('E-mail is not set up on this gateway.');
    expect(some.buttons).toEqual(['Add webhook']);
  });

  it('each target: its channel, where it points, when last delivered, failing since, turned off and why; test and remove named for it', () => {
    const shown = render({
      settings: SETTINGS,
      targets: [
        target('t1', { lastDeliveredAt: '2026-11-28T11:00:00Z' }),
        target('t2', { channel: 'WEBHOOK', description: 'https://ha.example/hook', failingSince: '2026-11-28T09:00:00Z' }),
        target('t3', {
          channel: 'WEB_PUSH',
          description: 'fcm.googleapis.com',
          disabledAt: '2026-11-28T09:30:00Z',
          disabledReason: 'the push service said the subscription is gone',
        }),
      ],
    });
    const items = [...shown.html.matchAll(/<li class="target" data-channel="([^"]+)" data-state="([^"]+)">([\s\S]*?)<\/li>/g)];
    expect(items.map(([, channel, state]) => [channel, state])).toEqual([
      ['EMAIL', 'active'],
      ['WEBHOOK', 'failing'],
      ['WEB_PUSH', 'disabled'],
    ]);
    const text = items.map(([, , , body]) => body!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' '));
    expect(text[0]).toMatch(
      /^ E-mail r\*\*\*@demo\.test Added .+\. Last message .+\. Send test to E-mail: r\*\*\*@demo\.test Remove E-mail: r\*\*\*@demo\.test $/,
    );
    expect(text[1]).toMatch(
      /No message yet\. Failing since .+: each message is tried again, and a target that keeps failing is turned off\./,
    );
    expect(text[2]).toMatch(/Turned off .+: the push service said the subscription is gone\. Remove it and add it again to use it\./);
    // A target turned off gets no test; every one can be removed.
    expect(shown.buttons.filter((name) => name.startsWith('Send test') || name.startsWith('Remove'))).toEqual([
      'Send test to E-mail: r***@demo.test',
      'Remove E-mail: r***@demo.test',
      'Send test to Webhook: https://ha.example/hook',
      'Remove Webhook: https://ha.example/hook',
      'Send test to Browser: fcm.googleapis.com (disabled)',
      'Remove Browser: fcm.googleapis.com',
    ]);
  });

  it('at the most targets, adding waits for a removal; with no token to hand over, it asks for a new sign-in', () => {
    const full = render({ settings: SETTINGS, targets: [target('a'), target('b'), target('c')] });
    expect(full.text).toContain('You have 3 targets, the most this gateway allows: remove one to add another.');
    expect(full.buttons.slice(-3)).toEqual(['Notify me (disabled)', 'E-mail me (disabled)', 'Add webhook (disabled)']);
    const spent = render({ settings: SETTINGS, needsSignIn: true });
    expect(spent.text).toContain(SIGN_IN_AGAIN);
    expect(spent.buttons).toEqual(['Notify me (disabled)', 'E-mail me (disabled)', 'Add webhook (disabled)']);
  });

  it('a new webhook’s secret shown with its warning and a copy button; an action under way says so; problems and outcomes announced', () => {
    const secret = render({
      settings: SETTINGS,
      targets: [target('w', { channel: 'WEBHOOK', description: 'https://ha.example/hook' })],
      secret: { description: 'https://ha.example/hook', secret: 'whsec_c2VjcmV0' },
      busy: 'test:w',
      problem: 'Too many messages this hour.',
      done: 'Webhook added: https://ha.example/hook.',
    });
    expect(secret.text).toContain('The signing secret of https://ha.example/hook Copy it now: it is not shown again.');
    expect(secret.html).toContain('<code class="secret-value">whsec_c2VjcmV0</code>');
    expect(secret.buttons).toContain('Copy secret');
    expect(secret.buttons).toContain('I have kept it');
    expect(secret.buttons).toContain('Sending… to Webhook: https://ha.example/hook (disabled)');
    expect(secret.html).toContain('<p class="problem" role="alert">Too many messages this hour.</p>');
    expect(secret.html).toContain('<p role="status">Webhook added: https://ha.example/hook.</p>');
    // Once kept, it is gone from the page.
    expect(render({ settings: SETTINGS, targets: [target('w')] }).html).not.toContain('whsec_');
  });
});

/** A stand-in for the gateway: notes each request's operation and variables, answers with `answer`'s result for it. */
function standIn(answer: (operation: string, variables: Record<string, unknown>) => unknown) {
  const sent: { operation: string; variables: Record<string, unknown> }[] = [];
  const fetch: typeof globalThis.fetch = async (_input, init) => {
    const body = JSON.parse(String(init?.body)) as { query: string; variables?: Record<string, unknown> };
    const operation = /^(?:query|mutation) (\w+)/m.exec(body.query)![1]!;
    const variables = body.variables ?? {};
    sent.push({ operation, variables });
    return new Response(JSON.stringify(answer(operation, variables)), { headers: { 'content-type': 'application/json' } });
  };
  return { fetch, sent };
}

const TOKENS: Tokens = {
  accessToken: 'access-1',
  accessTokenExpiresAt: '2026-11-28T12:00:00Z',
  idToken: null,
  idTokenExpiresAt: null,
  refreshToken: 'refresh-1',
};
const refused = (code: string, message: string) => ({ data: null, errors: [{ message, extensions: { code } }] });
const added = (operation: string) =>
  operation === 'TrackerAddWebhook'
    ? {
        data: {
          addWebhookTarget: { target: target('w', { channel: 'WEBHOOK', description: 'https://ha.example/hook' }), secret: 'whsec_abc' },
        },
      }
    : { data: { [operation === 'TrackerAddEmail' ? 'addEmailTarget' : 'addWebPushTarget']: target('t') } };

/** The browser granting everything, its subscription `json`; notes the key it was given. */
function grantingBrowser(
  json: unknown = { endpoint: 'https://push.example/send/abc', expirationTime: null, keys: { p256dh: 'BPx-1_a', auth: 'c2Vj' } },
) {
  const keys: Uint8Array[] = [];
  const browser: PushBrowser = {
    supported: true,
    requestPermission: async () => 'granted',
    register: async () => ({
      pushManager: {
        subscribe: async (options) => {
          keys.push(options.applicationServerKey as Uint8Array);
          return { toJSON: () => json };
        },
        getSubscription: async () => null,
      },
    }),
  };
  return { browser, keys };
}

describe('what the panel sends', () => {
  it('the refresh token goes over once, taken out of the client, only while the gateway keeps none; not again once accepted', async () => {
    const gateway = standIn((operation) => added(operation));
    const client = createOrderClient({ endpoint: 'http://gateway.test/graphql', fetch: gateway.fetch, tokens: TOKENS });
    const calls = notificationCalls(client);
    expect(await calls.addEmail(0)).toEqual({ done: 'Messages will go to r***@demo.test.' });
    expect(client.tokens!.refreshToken).toBe('');
    // The gateway keeps one now: none is sent with the next.
    expect(await calls.addWebhook(1, 'https://ha.example/hook')).toEqual({
      done: 'Webhook added (https://ha.example/hook).',
      secret: { description: 'https://ha.example/hook', secret: 'whsec_abc' },
    });
    expect(gateway.sent).toEqual([
      { operation: 'TrackerAddEmail', variables: { refreshToken: 'refresh-1' } },
      { operation: 'TrackerAddWebhook', variables: { url: 'https://ha.example/hook' } },
    ]);
    // All removed (the gateway let its token go): nothing left to hand over, so nothing is sent; a new sign-in it is.
    expect(calls.canHandOver).toBe(false);
    expect(await calls.addEmail(0)).toEqual({ problem: SIGN_IN_AGAIN });
    expect(gateway.sent).toHaveLength(2);
  });

  it('a refused add keeps the token for the next try, and says why in the gateway’s words; a limit too', async () => {
    let answer = refused('BAD_USER_INPUT', 'The order service has not verified your e-mail address.');
    const gateway = standIn((operation) => (operation === 'TrackerAddEmail' ? answer : added(operation)));
    const client = createOrderClient({ endpoint: 'http://gateway.test/graphql', fetch: gateway.fetch, tokens: TOKENS });
    const calls = notificationCalls(client);
    expect(await calls.addEmail(0)).toEqual({ problem: 'The order service has not verified your e-mail address.' });
    expect(calls.canHandOver).toBe(true);
    answer = refused('RATE_LIMITED', 'You have 5 targets, the most there can be.');
    expect(await calls.addEmail(0)).toEqual({ problem: 'You have 5 targets, the most there can be.' });
    expect(await calls.addWebhook(0, 'https://ha.example/hook')).toMatchObject({ done: 'Webhook added (https://ha.example/hook).' });
    expect(gateway.sent.map(({ variables }) => variables.refreshToken)).toEqual(['refresh-1', 'refresh-1', 'refresh-1']);
    expect(calls.canHandOver).toBe(false);
  });

  it("Notify me: the browser's subscription as addWebPushTarget takes it, subscribed with the gateway's key", async () => {
    const gateway = standIn((operation) => added(operation));
    const { browser, keys } = grantingBrowser();
    const calls = notificationCalls(
      createOrderClient({ endpoint: 'http://gateway.test/graphql', fetch: gateway.fetch, tokens: TOKENS }),
      browser,
    );
    expect(await calls.addWebPush(0, SETTINGS.webPushPublicKey!)).toEqual({
      done: 'This browser will show a notification when your order moves.',
    });
    expect(gateway.sent).toEqual([
      {
        operation: 'TrackerAddWebPush',
        variables: {
          subscription: { endpoint: 'https://push.example/send/abc', p256dh: 'BPx-1_a', auth: 'c2Vj' },
          refreshToken: 'refresh-1',
        },
      },
    ]);
    // The VAPID key as bytes: 65, an uncompressed P-256 point (0x04 first).
    expect([keys[0]!.length, keys[0]![0]]).toEqual([65, 4]);
  });

  it('Notify me that fails in the browser sends nothing and leaves the page its refresh token', async () => {
    const gateway = standIn((operation) => added(operation));
    const client = createOrderClient({ endpoint: 'http://gateway.test/graphql', fetch: gateway.fetch, tokens: TOKENS });
    const offline: PushBrowser = {
      ...grantingBrowser().browser,
      register: async () => ({
        pushManager: {
          subscribe: () => Promise.reject(new DOMException('Registration failed - push service error', 'AbortError')),
          getSubscription: async () => null,
        },
      }),
    };
    expect(await notificationCalls(client, offline).addWebPush(0, SETTINGS.webPushPublicKey!)).toEqual({
      problem: PUSH_PROBLEMS.pushService,
    });
    expect(gateway.sent).toEqual([]);
    expect(client.tokens!.refreshToken).toBe('refresh-1');
  });

  it('the gateway out of reach, or the sign-in run out: said in words', async () => {
    const down = notificationCalls(
      createOrderClient({
        endpoint: 'http://gateway.test/graphql',
        fetch: () => Promise.reject(new TypeError('fetch failed')),
        tokens: TOKENS,
      }),
    );
    expect(await down.sendTest('t')).toEqual({ problem: 'The gateway could not be reached: try again.' });
    expect(await down.load()).toEqual({ failed: 'The gateway could not be reached: try again.' });
    const expired = standIn(() => refused('UNAUTHENTICATED', 'Access token expired'));
    const calls = notificationCalls(
      createOrderClient({ endpoint: 'http://gateway.test/graphql', fetch: expired.fetch, tokens: { ...TOKENS, refreshToken: '' } }),
    );
    expect(await calls.remove(1, 't')).toEqual({ problem: 'Your sign-in has run out: sign out and in again, then try once more.' });
  });
});

describe('Notify me, each way it can fail', () => {
  const KEY = SETTINGS.webPushPublicKey!;
  const failing = (overrides: Partial<PushBrowser>, subscribeError?: unknown): PushBrowser => ({
    ...grantingBrowser().browser,
    ...(subscribeError
      ? { register: async () => ({ pushManager: { subscribe: () => Promise.reject(subscribeError), getSubscription: async () => null } }) }
      : {}),
    ...overrides,
  });

  it('says what happened and what to do: no support, blocked, dismissed, no worker, no push service, an unusable subscription', async () => {
    expect(await subscribeThisBrowser(KEY, failing({ supported: false }))).toEqual({ problem: 'unsupported' });
    expect(await subscribeThisBrowser(KEY, failing({ requestPermission: async () => 'denied' }))).toEqual({ problem: 'denied' });
    expect(await subscribeThisBrowser(KEY, failing({ requestPermission: async () => 'default' }))).toEqual({ problem: 'dismissed' });
    expect(await subscribeThisBrowser(KEY, failing({ register: () => Promise.reject(new TypeError('404')) }))).toEqual({
      problem: 'worker',
    });
    // Headless Chromium offline, or a push service down: "AbortError: Registration failed - push service error".
    expect(
      await subscribeThisBrowser(KEY, failing({}, new DOMException('Registration failed - push service error', 'AbortError'))),
    ).toEqual({
      problem: 'pushService',
    });
    expect(
      await subscribeThisBrowser(KEY, failing({}, new DOMException('Registration failed - permission denied', 'NotAllowedError'))),
    ).toEqual({
      problem: 'denied',
    });
    expect(await subscribeThisBrowser(KEY, grantingBrowser({ endpoint: 'no url', keys: { p256dh: 'a', auth: 'b' } }).browser)).toEqual({
      problem: 'subscription',
    });
    expect(PUSH_PROBLEMS.pushService).toBe(
      'This browser’s push service could not be reached, so it cannot be notified now. Try again later, or choose e-mail or a webhook.',
    );
  });

  it('subscribed before with another key (the demo made new ones at its start): the old subscription dropped, the browser subscribed afresh', async () => {
    const done: string[] = [];
    const fresh = { endpoint: 'https://push.example/send/new', keys: { p256dh: 'BNew', auth: 'c2Vj' } };
    const browser: PushBrowser = {
      ...grantingBrowser().browser,
      register: async () => ({
        pushManager: {
          subscribe: async () => {
            done.push('subscribe');
            if (!done.includes('unsubscribe'))
              throw new DOMException('A subscription with a different applicationServerKey already exists.', 'InvalidStateError');
            return { toJSON: () => fresh };
          },
          getSubscription: async () => ({ unsubscribe: async () => (done.push('unsubscribe'), true) }),
        },
      }),
    };
    expect(await subscribeThisBrowser(KEY, browser)).toEqual({
      subscription: { endpoint: 'https://push.example/send/new', p256dh: 'BNew', auth: 'c2Vj' },
    });
    expect(done).toEqual(['subscribe', 'unsubscribe', 'subscribe']);
  });

  it('a subscription is an endpoint URL and both keys in base64url, else none (which endpoints may be is the gateway’s to say)', () => {
    expect(subscriptionInput({ endpoint: 'https://p.example/a', keys: { p256dh: 'AB-_', auth: 'cd' } })).toEqual({
      endpoint: 'https://p.example/a',
      p256dh: 'AB-_',
      auth: 'cd',
    });
    for (const json of [
      null,
      'x',
      {},
      { endpoint: 'https://p.example/a' },
      { endpoint: 'https://p.example/a', keys: { p256dh: 'a b', auth: 'c' } },
      { endpoint: 'nope', keys: { p256dh: 'a', auth: 'c' } },
    ])
      expect(subscriptionInput(json)).toBeNull();
  });
});
