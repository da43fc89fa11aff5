// Notifications through the graph (Query.notifications, the add/remove/test mutations), in
// process against the simulator: the refresh token handed over is proven at once and bound to
// the caller, e-mail only to a verified address, URLs the gateway will not reach refused before
// the token is spent, each limit, and a test message queued to the target. The queue is the
// DeliveryQueue the service is given, recording its jobs (delivery is the watcher's subject).
import { createECDH, randomBytes } from 'node:crypto';
import webPush from 'web-push';
import { afterEach, describe, expect, it } from 'vitest';
import { LoginDocument } from '../../src/client/__generated__/graphql.js';
import type { DeliveryJob, DeliveryQueue } from '../../src/notify/contracts.js';
import { loadConfig } from '../../src/server/config.js';
import { HOSTS } from '../../src/upstream/contract.js';
import { demoCustomer } from '../helpers/demo.js';
import { callCounts, execute, startHarness, type Harness, type ResponseError, type TestGatewayConfig } from '../helpers/harness.js';

const KEYS = `k1:${randomBytes(32).toString('base64')}`;
// Settings as in front of the real service (no demo): what a test sets is all there is.
const UPSTREAM = Object.fromEntries(HOSTS.map((name) => [name, `http://upstream.test/${name.toLowerCase()}`]));

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function recordingQueue(): DeliveryQueue & { jobs: DeliveryJob[] } {
  const jobs: DeliveryJob[] = [];
  return { jobs, add: async (job) => void jobs.push(job), close: async () => undefined };
}

async function setup(env: Record<string, string> = {}, { on = true, gateway = {} as TestGatewayConfig } = {}) {
  const notify = on ? loadConfig({ ...UPSTREAM, NOTIFY_TOKEN_KEYS: KEYS, NOTIFY_ALLOW_PRIVATE_ADDRESSES: 'on', ...env }).notify : null;
  const queue = recordingQueue();
  const harness = await startHarness({ gateway: { notify, notifyQueue: queue, ...gateway } });
  cleanups.push(() => harness.close());
  /** A GraphQL request as `token`'s caller: its data and errors. */
  // A request refused before it runs is a 400, which graphql-request throws: its errors all the same.
  const graphql = async (token: string | null, query: string, variables?: Record<string, unknown>) => {
    const response = await harness
      .client(token)
      .rawRequest<any>(query, variables)
      .catch((error: { response: { data?: unknown; errors: unknown[] } }) => error.response);
    return { data: response.data as any, errors: (response.errors ?? []) as unknown as ResponseError[] };
  };
  return { harness, queue, graphql, signIn: (username: string) => signIn(harness, username) };
}

/** Signs a demo customer in through the gateway: its access and refresh tokens. */
async function signIn(harness: Harness, username: string) {
  const { data } = await execute(harness.client(), LoginDocument, {
    username,
    password: demoCustomer(harness.simulator, username).password,
  });
  return { access: data!.login.accessToken, refresh: data!.login.refreshToken };
}

const TARGET = 'id channel description createdAt lastDeliveredAt failingSince disabledAt disabledReason';
const LIST = `{ notifications { enabled channels webPushPublicKey pollIntervalSeconds maxTargets targets { ${TARGET} } } }`;
const ADD_WEBHOOK = `mutation ($url: String!, $refreshToken: String) {
  addWebhookTarget(url: $url, refreshToken: $refreshToken) { secret target { ${TARGET} } } }`;
const ADD_EMAIL = `mutation ($refreshToken: String) { addEmailTarget(refreshToken: $refreshToken) { ${TARGET} } }`;
const ADD_PUSH = `mutation ($subscription: WebPushSubscriptionInput!, $refreshToken: String) {
  addWebPushTarget(subscription: $subscription, refreshToken: $refreshToken) { ${TARGET} } }`;
const REMOVE = 'mutation ($id: ID!) { removeNotificationTarget(id: $id) }';
const TEST = 'mutation ($id: ID!) { sendTestNotification(id: $id) }';
const REFRESH = 'mutation ($refreshToken: String!) { refreshTokens(refreshToken: $refreshToken) { refreshToken } }';

const codes = (errors: ResponseError[]) => errors.map((error) => error.extensions?.code);
const HOOK = 'http://127.0.0.1:9/hooks/abc';

/** A browser's push subscription: a P-256 public key and a 16-byte auth secret. */
function subscription(endpoint = 'https://push.example.net/send/one') {
  const ecdh = createECDH('prime256v1');
  return { endpoint, p256dh: ecdh.generateKeys().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

describe('notifications off (no NOTIFY_TOKEN_KEYS, not the demo)', () => {
  it('says so, lists nothing, and refuses an add before any upstream call', async () => {
    const { harness, graphql, signIn } = await setup({}, { on: false });
    const { access, refresh } = await signIn('production@demo.test');
    expect((await graphql(access, LIST)).data.notifications).toEqual({
      enabled: false,
      channels: [],
      webPushPublicKey: null,
      pollIntervalSeconds: 0,
      maxTargets: 0,
      targets: [],
    });
    const added = await graphql(access, ADD_WEBHOOK, { url: HOOK, refreshToken: refresh });
    expect(added.errors.map(({ message, extensions }) => [extensions?.code, message])).toEqual([
      ['BAD_USER_INPUT', 'Notifications are off on this gateway.'],
    ]);
    expect(callCounts(harness.simulator).refreshTokens).toBeUndefined();
  });
});

describe('adding a target', () => {
  it('with the refresh token: renewed with at once (one refreshTokens, the token handed over spent), the secret shown once, listed', async () => {
    const { harness, graphql, signIn } = await setup();
    const { access, refresh } = await signIn('production@demo.test');
    const added = await graphql(access, ADD_WEBHOOK, { url: HOOK, refreshToken: refresh });
    expect(added.errors).toEqual([]);
    const { secret, target } = added.data.addWebhookTarget;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(target).toMatchObject({ channel: 'WEBHOOK', description: 'http://127.0.0.1:9/…', lastDeliveredAt: null, disabledAt: null });
    expect(callCounts(harness.simulator).refreshTokens).toBe(1);
    // Single-use: the gateway's now; the client's own renewal with it is refused.
    expect(codes((await graphql(access, REFRESH, { refreshToken: refresh })).errors)).toEqual(['UNAUTHENTICATED']);

    const listed = await graphql(access, LIST);
    expect(listed.data.notifications).toEqual({
      enabled: true,
      channels: ['WEBHOOK'],
      webPushPublicKey: null,
      pollIntervalSeconds: 300,
      maxTargets: 5,
      targets: [target],
    });
    expect(JSON.stringify(listed)).not.toContain(secret.slice(6));
  });

  it('needs a refresh token while none is kept for the caller; a second target does not', async () => {
    const { harness, graphql, signIn } = await setup();
    const { access, refresh } = await signIn('production@demo.test');
    const first = await graphql(access, ADD_WEBHOOK, { url: HOOK });
    expect(first.errors.map(({ message }) => message)).toEqual([
      'refreshToken is required: the gateway keeps none for you yet (it renews your access with it to poll).',
    ]);
    expect((await graphql(access, ADD_WEBHOOK, { url: HOOK, refreshToken: refresh })).errors).toEqual([]);
    expect((await graphql(access, ADD_WEBHOOK, { url: `${HOOK}/2` })).errors).toEqual([]);
    expect((await graphql(access, LIST)).data.notifications.targets).toHaveLength(2);
    expect(callCounts(harness.simulator).refreshTokens).toBe(1);
    expect(codes((await graphql(access, ADD_WEBHOOK, { url: HOOK, refreshToken: ' ' })).errors)).toEqual(['BAD_USER_INPUT']);
  });

  it("another customer's refresh token, or a spent one: UNAUTHENTICATED, nothing kept, the other's token not spent", async () => {
    const { graphql, signIn } = await setup();
    const a = await signIn('production@demo.test');
    const b = await signIn('confirmed@demo.test');
    expect(codes((await graphql(a.access, ADD_WEBHOOK, { url: HOOK, refreshToken: b.refresh })).errors)).toEqual(['UNAUTHENTICATED']);
    expect((await graphql(a.access, LIST)).data.notifications.targets).toEqual([]);
    expect((await graphql(b.access, REFRESH, { refreshToken: b.refresh })).errors).toEqual([]);

    expect((await graphql(a.access, REFRESH, { refreshToken: a.refresh })).errors).toEqual([]);
    expect(codes((await graphql(a.access, ADD_WEBHOOK, { url: HOOK, refreshToken: a.refresh })).errors)).toEqual(['UNAUTHENTICATED']);
    expect((await graphql(a.access, LIST)).data.notifications.targets).toEqual([]);
  });

  it('handing a refresh token over is a credential mutation: two in one request are refused before any call; adds without one are not', async () => {
    const { harness, graphql, signIn } = await setup();
    const { access, refresh } = await signIn('production@demo.test');
    const calls = harness.simulator.requestLog.length;
    const two = `mutation ($r: String) {
      a: addWebhookTarget(url: "${HOOK}", refreshToken: $r) { secret }
      b: addEmailTarget(refreshToken: $r) { id } }`;
    expect(codes((await graphql(access, two, { r: refresh })).errors)).toEqual(['CREDENTIAL_OPERATIONS_LIMIT']);
    expect(harness.simulator.requestLog.length).toBe(calls);
    expect((await graphql(access, ADD_WEBHOOK, { url: HOOK, refreshToken: refresh })).errors).toEqual([]);
    const both = `mutation { a: addWebhookTarget(url: "${HOOK}") { secret } b: addWebhookTarget(url: "${HOOK}/2") { secret } }`;
    expect((await graphql(access, both)).errors).toEqual([]);
    expect((await graphql(access, LIST)).data.notifications.targets).toHaveLength(3);
  });

  it('with the response cache on, the list is never a kept answer: a target added shows at once', async () => {
    const { graphql, signIn } = await setup({}, { gateway: { responseCacheTtlMs: 60_000 } });
    const { access, refresh } = await signIn('production@demo.test');
    expect((await graphql(access, LIST)).data.notifications.targets).toEqual([]);
    expect((await graphql(access, ADD_WEBHOOK, { url: HOOK, refreshToken: refresh })).errors).toEqual([]);
    expect((await graphql(access, LIST)).data.notifications.targets).toHaveLength(1);
  });

  it('without a bearer: UNAUTHENTICATED for the targets and every mutation', async () => {
    const { graphql } = await setup();
    const listed = await graphql(null, LIST);
    expect(codes(listed.errors)).toEqual(['UNAUTHENTICATED']);
    expect(codes((await graphql(null, ADD_WEBHOOK, { url: HOOK, refreshToken: 'x' })).errors)).toEqual(['UNAUTHENTICATED']);
    expect(codes((await graphql(null, REMOVE, { id: 'tgt_x' })).errors)).toEqual(['UNAUTHENTICATED']);
    expect(codes((await graphql(null, TEST, { id: 'tgt_x' })).errors)).toEqual(['UNAUTHENTICATED']);
  });
});

describe('e-mail', () => {
  it("to the account's own verified address, partly hidden; an unverified one refused before the token is spent", async () => {
    const { harness, graphql, signIn } = await setup({ SMTP_URL: 'smtp://127.0.0.1:9' });
    const verified = await signIn('confirmed@demo.test');
    const added = await graphql(verified.access, ADD_EMAIL, { refreshToken: verified.refresh });
    expect(added.errors).toEqual([]);
    expect(added.data.addEmailTarget).toMatchObject({ channel: 'EMAIL', description: 'c***d@demo.test' });
    // The same address again: the same target.
    const again = await graphql(verified.access, ADD_EMAIL, {});
    expect(again.data.addEmailTarget.id).toBe(added.data.addEmailTarget.id);
    expect((await graphql(verified.access, LIST)).data.notifications.targets).toHaveLength(1);

    const unverified = await signIn('early@demo.test');
    const refused = await graphql(unverified.access, ADD_EMAIL, { refreshToken: unverified.refresh });
    expect(refused.errors.map(({ extensions, message }) => [extensions?.code, message])).toEqual([
      ['BAD_USER_INPUT', "The account's e-mail address is not verified: verify it with the car maker, then add e-mail again."],
    ]);
    expect(callCounts(harness.simulator).refreshTokens).toBe(1);
    expect((await graphql(unverified.access, REFRESH, { refreshToken: unverified.refresh })).errors).toEqual([]);
  });

  it('not offered without SMTP_URL in front of the real service', async () => {
    const { graphql, signIn } = await setup();
    const { access, refresh } = await signIn('confirmed@demo.test');
    const refused = await graphql(access, ADD_EMAIL, { refreshToken: refresh });
    expect(refused.errors.map(({ message }) => message)).toEqual(['E-mail is not configured on this gateway (SMTP_URL).']);
  });
});

describe('Web Push', () => {
  it('offered with VAPID keys (the public one given out); the same endpoint again is the same target; keys that do not fit refused', async () => {
    const vapid = webPush.generateVAPIDKeys();
    const { graphql, signIn } = await setup({ VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey });
    const { access, refresh } = await signIn('production@demo.test');
    const listed = (await graphql(access, LIST)).data.notifications;
    expect([listed.channels, listed.webPushPublicKey]).toEqual([['WEB_PUSH', 'WEBHOOK'], vapid.publicKey]);

    const browser = subscription();
    const added = await graphql(access, ADD_PUSH, { subscription: browser, refreshToken: refresh });
    expect(added.errors).toEqual([]);
    expect(added.data.addWebPushTarget).toMatchObject({ channel: 'WEB_PUSH', description: 'push.example.net' });
    const renewed = await graphql(access, ADD_PUSH, { subscription: { ...subscription(), endpoint: browser.endpoint } });
    expect(renewed.data.addWebPushTarget.id).toBe(added.data.addWebPushTarget.id);
    const other = await graphql(access, ADD_PUSH, { subscription: subscription('https://push.example.net/send/two') });
    expect(other.data.addWebPushTarget.id).not.toBe(added.data.addWebPushTarget.id);
    expect((await graphql(access, LIST)).data.notifications.targets).toHaveLength(2);

    for (const bad of [
      { p256dh: 'AAAA' },
      { p256dh: Buffer.alloc(65, 5).toString('base64url') },
      { auth: randomBytes(15).toString('base64url') },
      { p256dh: 'not base64!' },
    ])
      expect(codes((await graphql(access, ADD_PUSH, { subscription: { ...browser, ...bad } })).errors), JSON.stringify(bad)).toEqual([
        'BAD_USER_INPUT',
      ]);
  });

  it('not offered without VAPID keys', async () => {
    const { graphql, signIn } = await setup();
    const { access, refresh } = await signIn('production@demo.test');
    const refused = await graphql(access, ADD_PUSH, { subscription: subscription(), refreshToken: refresh });
    expect(refused.errors.map(({ message }) => message)).toEqual([
      'Web Push is not configured on this gateway (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY).',
    ]);
  });
});

describe('URLs the gateway will not reach', () => {
  it('refused as BAD_USER_INPUT before the refresh token is spent: not https, loopback, link-local, IPv6 loopback, a name resolving to loopback, credentials', async () => {
    const { harness, graphql, signIn } = await setup({ NOTIFY_ALLOW_PRIVATE_ADDRESSES: 'off' });
    const { access, refresh } = await signIn('production@demo.test');
    const refused = [
      'http://hooks.example.com/x',
      'https://127.0.0.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/x',
      'https://localhost/x',
      'https://user:password@hooks.example.com/x',
      'not a url',
      `https://hooks.example.com/${'a'.repeat(2048)}`,
    ];
    for (const url of refused) {
      const { errors } = await graphql(access, ADD_WEBHOOK, { url, refreshToken: refresh });
      expect(codes(errors), url).toEqual(['BAD_USER_INPUT']);
      expect(errors[0]!.message, url).not.toContain(url);
    }
    const push = await graphql(access, ADD_PUSH, { subscription: subscription('https://10.0.0.1/push'), refreshToken: refresh });
    expect(codes(push.errors)).toEqual(['BAD_USER_INPUT']);
    expect(callCounts(harness.simulator).refreshTokens).toBeUndefined();
    expect((await graphql(access, LIST)).data.notifications.targets).toEqual([]);
  });
});

describe('limits', () => {
  it('NOTIFY_TARGETS_PER_CUSTOMER: one more is RATE_LIMITED, and the refresh token given with it is not spent', async () => {
    const { graphql, signIn } = await setup({ NOTIFY_TARGETS_PER_CUSTOMER: '2' });
    const { access, refresh } = await signIn('production@demo.test');
    expect((await graphql(access, ADD_WEBHOOK, { url: HOOK, refreshToken: refresh })).errors).toEqual([]);
    expect((await graphql(access, ADD_WEBHOOK, { url: HOOK })).errors).toEqual([]);
    const again = await signIn('production@demo.test');
    const third = await graphql(again.access, ADD_WEBHOOK, { url: HOOK, refreshToken: again.refresh });
    expect(third.errors.map(({ extensions, message }) => [extensions?.code, message])).toEqual([
      ['RATE_LIMITED', 'At most 2 notification targets per customer: remove one first.'],
    ]);
    expect((await graphql(again.access, REFRESH, { refreshToken: again.refresh })).errors).toEqual([]);
  });

  it('NOTIFY_CUSTOMERS: a new customer past it is RATE_LIMITED, its token not spent; one already kept still adds', async () => {
    const { graphql, signIn } = await setup({ NOTIFY_CUSTOMERS: '1' });
    const a = await signIn('production@demo.test');
    const b = await signIn('confirmed@demo.test');
    expect((await graphql(a.access, ADD_WEBHOOK, { url: HOOK, refreshToken: a.refresh })).errors).toEqual([]);
    expect(codes((await graphql(b.access, ADD_WEBHOOK, { url: HOOK, refreshToken: b.refresh })).errors)).toEqual(['RATE_LIMITED']);
    expect((await graphql(b.access, REFRESH, { refreshToken: b.refresh })).errors).toEqual([]);
    expect((await graphql(a.access, ADD_WEBHOOK, { url: HOOK })).errors).toEqual([]);
  });

  it('NOTIFY_MESSAGES_PER_HOUR: test messages count; past it, RATE_LIMITED and nothing queued', async () => {
    const { graphql, signIn, queue } = await setup({ NOTIFY_MESSAGES_PER_HOUR: '2' });
    const { access, refresh } = await signIn('production@demo.test');
    const { id } = (await graphql(access, ADD_WEBHOOK, { url: HOOK, refreshToken: refresh })).data.addWebhookTarget.target;
    expect((await graphql(access, TEST, { id })).data).toEqual({ sendTestNotification: true });
    expect((await graphql(access, TEST, { id })).data).toEqual({ sendTestNotification: true });
    expect(codes((await graphql(access, TEST, { id })).errors)).toEqual(['RATE_LIMITED']);
    expect(queue.jobs).toHaveLength(2);
  });
});

describe('removing and testing', () => {
  it('a test message is queued to the target, its own key each time; an unknown id or another customer’s is false', async () => {
    const { harness, graphql, signIn, queue } = await setup();
    const a = await signIn('production@demo.test');
    const b = await signIn('confirmed@demo.test');
    const { id } = (await graphql(a.access, ADD_WEBHOOK, { url: HOOK, refreshToken: a.refresh })).data.addWebhookTarget.target;
    expect((await graphql(a.access, TEST, { id })).data).toEqual({ sendTestNotification: true });
    expect((await graphql(a.access, TEST, { id })).data).toEqual({ sendTestNotification: true });
    expect(queue.jobs.map(({ customerId, targetId, message }) => [customerId, targetId, message.kind, message.url])).toEqual([
      [demoCustomer(harness.simulator, 'production@demo.test').userId, id, 'test', '/tracker/'],
      [demoCustomer(harness.simulator, 'production@demo.test').userId, id, 'test', '/tracker/'],
    ]);
    expect(queue.jobs[0]!.message.key).toMatch(/^test_/);
    expect(queue.jobs[0]!.message.key).not.toBe(queue.jobs[1]!.message.key);
    expect((await graphql(a.access, TEST, { id: 'tgt_unknown' })).data).toEqual({ sendTestNotification: false });
    expect((await graphql(b.access, TEST, { id })).data).toEqual({ sendTestNotification: false });
    expect((await graphql(b.access, REMOVE, { id })).data).toEqual({ removeNotificationTarget: false });
    expect(queue.jobs).toHaveLength(2);
    expect((await graphql(a.access, LIST)).data.notifications.targets.map((target: any) => target.id)).toEqual([id]);
  });

  it('removing: true once, then false; the last one gone, the record and its refresh token go (a new add needs one again)', async () => {
    const { graphql, signIn } = await setup();
    const { access, refresh } = await signIn('production@demo.test');
    const first = (await graphql(access, ADD_WEBHOOK, { url: HOOK, refreshToken: refresh })).data.addWebhookTarget.target;
    const second = (await graphql(access, ADD_WEBHOOK, { url: HOOK })).data.addWebhookTarget.target;
    expect((await graphql(access, REMOVE, { id: first.id })).data).toEqual({ removeNotificationTarget: true });
    expect((await graphql(access, REMOVE, { id: first.id })).data).toEqual({ removeNotificationTarget: false });
    expect((await graphql(access, LIST)).data.notifications.targets).toEqual([second]);
    expect((await graphql(access, REMOVE, { id: second.id })).data).toEqual({ removeNotificationTarget: true });
    expect((await graphql(access, LIST)).data.notifications.targets).toEqual([]);
    expect(codes((await graphql(access, ADD_WEBHOOK, { url: HOOK })).errors)).toEqual(['BAD_USER_INPUT']);
  });
});
