// Notification records in Redis (REDIS_URL): no token, address or secret in clear in any key or
// value after targets are added; a value the gateway did not write read as no record (one warn
// line without it, no error to the client); compare-and-set under concurrent writers from two
// connections, and NOTIFY_CUSTOMERS held by the script under concurrent new customers.
import { createECDH, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import webPush from 'web-push';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LoginDocument } from '../../src/client/__generated__/graphql.js';
import { StoreLimitError, type CustomerRecord, type DeliveryQueue } from '../../src/notify/contracts.js';
import { decodeRecord, encodeRecord, recordBytes } from '../../src/notify/record.js';
import { createVault, openAddress } from '../../src/notify/vault.js';
import { connectRedis, type RedisConnection } from '../../src/redis/connection.js';
import { NOTIFY_CUSTOMERS, NOTIFY_RECORDS, redisNotificationStore } from '../../src/redis/notifications.js';
import { loadConfig } from '../../src/server/config.js';
import { createSimulator, type InProcessSimulator } from '../../src/simulator/server.js';
import { HOSTS } from '../../src/upstream/contract.js';
import { demoCustomer } from '../helpers/demo.js';
import { execute, inProcessGateway, type ResponseError } from '../helpers/harness.js';
import { until } from '../helpers/intervals.js';
import { capturedLogLines } from '../helpers/log-capture.js';
import { haveRedis, startRedis, type RedisServer } from '../helpers/redis.js';

const UPSTREAM = Object.fromEntries(HOSTS.map((name) => [name, `http://upstream.test/${name.toLowerCase()}`]));
const KEYS = `k1:${randomBytes(32).toString('base64')}`;
const settings = (env: Record<string, string> = {}) =>
  loadConfig({ ...UPSTREAM, NOTIFY_TOKEN_KEYS: KEYS, NOTIFY_ALLOW_PRIVATE_ADDRESSES: 'on', ...env }).notify!;
const noQueue: DeliveryQueue = { add: async () => undefined, close: async () => undefined };

let redis: RedisServer;
let reader: Redis;
let simulator: InProcessSimulator;
const cleanups: Array<() => unknown> = [];
beforeEach(async () => {
  if (!haveRedis) return;
  redis = await startRedis();
  reader = new Redis(redis.url);
  // The test's own reader: Redis stopped on purpose ("Redis away") is no error of the test's.
  reader.on('error', () => undefined);
  simulator = createSimulator({ latencyMs: 0 });
});
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  reader?.disconnect();
  await simulator?.close();
  await redis?.close();
});

async function gateway(env: Record<string, string> = {}) {
  const vapid = webPush.generateVAPIDKeys();
  const notify = settings({
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    SMTP_URL: 'smtp://127.0.0.1:9',
    ...env,
  });
  const started = inProcessGateway({ upstream: simulator, redisUrl: redis.url, notify, notifyQueue: noQueue });
  cleanups.push(() => started.close());
  const readiness = async () => ((await (await started.fetch('/readyz')).json()) as { redis?: string }).redis;
  await until(async () => (await readiness()) === 'available');
  const graphql = async (token: string | null, query: string, variables?: Record<string, unknown>) => {
    const response = await started.client(token).rawRequest<any>(query, variables);
    return { data: response.data, errors: (response.errors ?? []) as unknown as ResponseError[] };
  };
  const signIn = async (username: string) => {
    const { data } = await execute(started.client(), LoginDocument, { username, password: demoCustomer(simulator, username).password });
    return { access: data!.login.accessToken, refresh: data!.login.refreshToken };
  };
  return { graphql, signIn, readiness };
}

async function connection(): Promise<RedisConnection> {
  const made = connectRedis(redis.url, { commandTimeoutMs: 2000 });
  cleanups.push(() => made.close());
  await until(() => made.available());
  return made;
}

/** Every key in Redis with its value as text, whatever its type. */
async function everything(): Promise<string[]> {
  const found: string[] = [];
  for (const key of await reader.keys('*')) {
    const type = await reader.type(key);
    const value =
      type === 'string'
        ? [await reader.get(key)]
        : type === 'set'
          ? await reader.smembers(key)
          : type === 'hash'
            ? Object.entries(await reader.hgetall(key)).flat()
            : type === 'list'
              ? await reader.lrange(key, 0, -1)
              : type === 'zset'
                ? await reader.zrange(key, 0, -1, 'WITHSCORES')
                : [`(${type})`];
    found.push(key, ...value.map(String));
  }
  return found;
}

const TARGET = 'id channel description';
const ADD_WEBHOOK = `mutation ($url: String!, $refreshToken: String) {
  addWebhookTarget(url: $url, refreshToken: $refreshToken) { secret target { ${TARGET} } } }`;
const ADD_EMAIL = `mutation { addEmailTarget { ${TARGET} } }`;
const ADD_PUSH = `mutation ($subscription: WebPushSubscriptionInput!) { addWebPushTarget(subscription: $subscription) { ${TARGET} } }`;
const LIST = `{ notifications { targets { ${TARGET} } } }`;
const REMOVE = 'mutation ($id: ID!) { removeNotificationTarget(id: $id) }';
const REFRESH = 'mutation ($refreshToken: String!) { refreshTokens(refreshToken: $refreshToken) { refreshToken } }';

const record = (customerId: string, sentAt: number[] = []): CustomerRecord => ({
  customerId,
  refreshToken: 'v1.k1.sealed',
  accessToken: null,
  accessExpiresAt: null,
  targets: [],
  fields: null,
  sentAt,
});

describe.skipIf(!haveRedis)('notification records in Redis', () => {
  it('hold no token, address or secret in clear: every key and value read after three targets are added', async () => {
    const { graphql, signIn } = await gateway();
    const { access, refresh } = await signIn('confirmed@demo.test');
    const hook = 'https://hooks.example.com/api/webhook/receiver-own-secret-path';
    const added = await graphql(access, ADD_WEBHOOK, { url: hook, refreshToken: refresh });
    expect(added.errors).toEqual([]);
    expect((await graphql(access, ADD_EMAIL)).errors).toEqual([]);
    const ecdh = createECDH('prime256v1');
    const browser = {
      endpoint: 'https://push.example.net/send/browser-own-endpoint-id',
      p256dh: ecdh.generateKeys().toString('base64url'),
      auth: randomBytes(16).toString('base64url'),
    };
    expect((await graphql(access, ADD_PUSH, { subscription: browser })).errors).toEqual([]);

    // What the gateway keeps, opened with its keys: the renewal's own tokens, live for this customer.
    const customerId = demoCustomer(simulator, 'confirmed@demo.test').userId;
    const kept = decodeRecord(customerId, (await reader.get(`${NOTIFY_RECORDS}${customerId}`))!);
    if (!('record' in kept)) throw new Error(kept.problem);
    const vault = createVault(settings().tokenKeys);
    const keptRefresh = vault.open(customerId, kept.record.refreshToken);
    const keptAccess = vault.open(customerId, kept.record.accessToken!);
    expect(keptRefresh).not.toBe(refresh);
    expect(kept.record.targets.map(({ description }) => description)).toEqual([
      'https://hooks.example.com/…',
      'c***d@demo.test',
      'push.example.net',
    ]);

    const secrets = {
      access,
      refresh,
      keptRefresh,
      keptAccess,
      webhookSecret: added.data.addWebhookTarget.secret.slice('whsec_'.length),
      webhookPath: 'receiver-own-secret-path',
      email: 'confirmed@demo.test',
      endpoint: 'browser-own-endpoint-id',
      p256dh: browser.p256dh,
      auth: browser.auth,
    };
    const stored = await everything();
    expect(stored.some((text) => text.startsWith(NOTIFY_RECORDS))).toBe(true);
    for (const [name, secret] of Object.entries(secrets))
      expect(
        stored.filter((text) => text.includes(secret)),
        name,
      ).toEqual([]);
    // The kept refresh token is the customer's and live: the gateway can renew with it.
    expect((await graphql(keptAccess, REFRESH, { refreshToken: keptRefresh })).errors).toEqual([]);
  });

  it('the last target removed: the key and the customer in the set are gone', async () => {
    const { graphql, signIn } = await gateway();
    const { access, refresh } = await signIn('production@demo.test');
    const { id } = (await graphql(access, ADD_WEBHOOK, { url: 'https://hooks.example.com/x', refreshToken: refresh })).data.addWebhookTarget
      .target;
    expect(await reader.keys(`${NOTIFY_RECORDS}*`)).toHaveLength(1);
    expect((await graphql(access, REMOVE, { id })).data).toEqual({ removeNotificationTarget: true });
    expect([await reader.keys(`${NOTIFY_RECORDS}*`), await reader.scard(NOTIFY_CUSTOMERS)]).toEqual([[], 0]);
  });

  it('a value the gateway did not write reads as no record: no error to the client, one warn line without it; an add writes over it', async () => {
    const { graphql, signIn } = await gateway({ NOTIFY_RECORD_BYTES: String(16 * 1024) });
    const { access, refresh } = await signIn('production@demo.test');
    const customerId = demoCustomer(simulator, 'production@demo.test').userId;
    const key = `${NOTIFY_RECORDS}${customerId}`;
    const linesBefore = capturedLogLines.length;
    const values: Array<[string, () => Promise<unknown>]> = [
      ['not JSON', () => reader.set(key, 'not json {')],
      ['not a record', () => reader.set(key, JSON.stringify({ customerId, targets: 'all' }))],
      ["another customer's", () => reader.set(key, JSON.stringify(record('someone-else')))],
      ['over the bytes', () => reader.set(key, JSON.stringify({ ...record(customerId), pad: 'x'.repeat(17 * 1024) }))],
      ['a hash', async () => (await reader.del(key), reader.hset(key, 'customerId', customerId))],
    ];
    for (const [what, write] of values) {
      await write();
      expect(await graphql(access, LIST), what).toEqual({ data: { notifications: { targets: [] } }, errors: [] });
    }
    const warned = capturedLogLines.slice(linesBefore).filter((line) => line.includes('notification record'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('ignored notification record read from Redis');
    expect(warned[0]).not.toContain('not json {');
    // Without a record, an add needs the refresh token again, and writes a record over what was there.
    expect((await graphql(access, ADD_WEBHOOK, { url: 'https://hooks.example.com/x' })).errors[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect((await graphql(access, ADD_WEBHOOK, { url: 'https://hooks.example.com/x', refreshToken: refresh })).errors).toEqual([]);
    expect(await reader.type(key)).toBe('string');
  });

  it('rotation: a replica with a new key first seals the whole record again at its next write; the new key alone then opens all of it', async () => {
    const key = (id: string) => ({ id, key: randomBytes(32) });
    const [old, fresh] = [key('old'), key('new')];
    const env = (...keys: Array<{ id: string; key: Buffer }>) => ({
      NOTIFY_TOKEN_KEYS: keys.map(({ id, key }) => `${id}:${key.toString('base64')}`).join(','),
    });
    const before = await gateway(env(old));
    const { access, refresh } = await before.signIn('production@demo.test');
    expect((await before.graphql(access, ADD_WEBHOOK, { url: 'https://hooks.example.com/1', refreshToken: refresh })).errors).toEqual([]);
    const customerId = demoCustomer(simulator, 'production@demo.test').userId;
    const sealedValues = async () => {
      const kept = decodeRecord(customerId, (await reader.get(`${NOTIFY_RECORDS}${customerId}`))!);
      if (!('record' in kept)) throw new Error(kept.problem);
      const { refreshToken, accessToken, targets } = kept.record;
      return [refreshToken, accessToken!, ...targets.map(({ sealed }) => sealed)];
    };
    expect((await sealedValues()).map((sealed) => sealed.split('.')[1])).toEqual(['old', 'old', 'old']);

    const rotated = await gateway(env(fresh, old));
    expect((await rotated.graphql(access, ADD_WEBHOOK, { url: 'https://hooks.example.com/2' })).errors).toEqual([]);
    const values = await sealedValues();
    expect(values.map((sealed) => sealed.split('.')[1])).toEqual(['new', 'new', 'new', 'new']);
    const newOnly = createVault([fresh]);
    expect(newOnly.open(customerId, values[0]!)).toMatch(/^[\w-]{20,}$/);
    expect(values.slice(2).map((sealed) => openAddress(newOnly, customerId, sealed))).toEqual([
      expect.objectContaining({ channel: 'WEBHOOK', url: 'https://hooks.example.com/1' }),
      expect.objectContaining({ channel: 'WEBHOOK', url: 'https://hooks.example.com/2' }),
    ]);
  });

  it('Redis away: the list and an add fail as errors of their own (nothing assumed absent), the refresh token not spent; back, they work', async () => {
    const { graphql, signIn, readiness } = await gateway();
    const { access, refresh } = await signIn('production@demo.test');
    await redis.kill();
    await until(async () => (await readiness()) === 'unavailable');
    expect((await graphql(access, LIST)).errors.map(({ extensions }) => extensions?.code)).toEqual(['INTERNAL_SERVER_ERROR']);
    const add = await graphql(access, ADD_WEBHOOK, { url: 'https://hooks.example.com/x', refreshToken: refresh });
    expect(add.errors.map(({ extensions, message }) => [extensions?.code, message])).toEqual([
      ['INTERNAL_SERVER_ERROR', 'Unexpected error.'],
    ]);
    await redis.start();
    await until(async () => (await readiness()) === 'available');
    expect((await graphql(access, ADD_WEBHOOK, { url: 'https://hooks.example.com/x', refreshToken: refresh })).errors).toEqual([]);
  });

  it('compare-and-set: 40 changes of one record from two connections at once, none lost', async () => {
    const bounds = { customers: 10, recordBytes: 256 * 1024, totalBytes: 32 * 1024 * 1024 };
    const [one, two] = [redisNotificationStore(await connection(), bounds), redisNotificationStore(await connection(), bounds)];
    await one.update('c1', () => record('c1'));
    await Promise.all(
      Array.from({ length: 40 }, (_, at) =>
        (at % 2 ? one : two).update('c1', (current) => ({ ...current!, sentAt: [...current!.sentAt, at] })),
      ),
    );
    expect((await one.get('c1'))!.sentAt.toSorted((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, at) => at));
  });

  it('NOTIFY_BYTES held by the script: records from two connections at once never pass it together; one gone makes room', async () => {
    const one = recordBytes(encodeRecord(record('c0')));
    // Room for three records and 10 bytes more.
    const bounds = { customers: 100, recordBytes: 16 * 1024, totalBytes: 3 * one + 10 };
    const [a, b] = [redisNotificationStore(await connection(), bounds), redisNotificationStore(await connection(), bounds)];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, at) => (at % 2 ? a : b).update(`c${at}`, () => record(`c${at}`))),
    );
    expect(outcomes.filter(({ status }) => status === 'fulfilled')).toHaveLength(3);
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(refused.map((error) => [error instanceof StoreLimitError, error.limit])).toEqual(Array(7).fill([true, 'total']));
    const kept = await a.customers();
    // A kept record may not grow past it either, and stays as it was.
    const grown = Array.from({ length: 20 }, (_, at) => at);
    await expect(a.update(kept[0]!, (current) => ({ ...current!, sentAt: grown }))).rejects.toMatchObject({ limit: 'total' });
    expect((await a.get(kept[0]!))!.sentAt).toEqual([]);
    await b.update(kept[1]!, () => null);
    await a.update(kept[0]!, (current) => ({ ...current!, sentAt: grown }));
    expect((await b.get(kept[0]!))!.sentAt).toEqual(grown);
  });

  it('NOTIFY_CUSTOMERS held by the script: 10 new customers at once from two connections with room for 3, exactly 3 kept', async () => {
    const bounds = { customers: 3, recordBytes: 1024, totalBytes: 1024 * 1024 };
    const [one, two] = [redisNotificationStore(await connection(), bounds), redisNotificationStore(await connection(), bounds)];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, at) => (at % 2 ? one : two).update(`c${at}`, () => record(`c${at}`))),
    );
    expect(outcomes.filter(({ status }) => status === 'fulfilled')).toHaveLength(3);
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(refused.map((error) => [error instanceof StoreLimitError, error.limit])).toEqual(Array(7).fill([true, 'customers']));
    expect([
      (await one.customers()).length,
      await reader.scard(NOTIFY_CUSTOMERS),
      (await reader.keys(`${NOTIFY_RECORDS}*`)).length,
    ]).toEqual([3, 3, 3]);
    // A record past NOTIFY_RECORD_BYTES is refused, and the one kept stays.
    const kept = (await one.customers())[0]!;
    await expect(one.update(kept, (current) => ({ ...current!, sentAt: Array(1000).fill(1) }))).rejects.toMatchObject({ limit: 'bytes' });
    expect((await one.get(kept))!.sentAt).toEqual([]);
  });
});
