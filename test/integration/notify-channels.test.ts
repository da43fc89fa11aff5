// The three channels end to end, each against a real local receiver: a push service that checks
// the VAPID JWT (signature, aud, exp, sub) and decrypts the RFC 8291 payload with the keys a
// browser would hold, an SMTP server (smtp-server) taking the mail, and a webhook receiver
// verifying the Standard Webhooks signature. Local receivers are on loopback: private addresses
// are allowed here (safe-address.test.ts has them refused).
import { createECDH, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decrypt } from 'http_ece';
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';
import webPush from 'web-push';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCodeLabels } from '../../src/graph/code-labels.js';
import { createSenders, type SenderSettings } from '../../src/notify/channels/index.js';
import { PUSH_PAYLOAD_BYTES, PUSH_TTL_SECONDS, pushPayload, pushTopic } from '../../src/notify/channels/web-push.js';
import { newWebhookSecret } from '../../src/notify/channels/webhook.js';
import { DeliveryError, type Message } from '../../src/notify/contracts.js';
import { messageForChange, messageForEnded, messageForTest } from '../../src/notify/messages.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const labels = parseCodeLabels(JSON.stringify({ exterior: { PPSW: 'Pearl White', BSB: 'Big Sur Blue' } }));
const context = { labels, trackerUrl: 'https://orders.example.com/tracker/' };
const change = messageForChange(context, {
  customerId: 'cust-1',
  orderId: 'ord-1',
  fields: { reservationId: 'RN123', status: 'IN_PRODUCTION', 'configuration.exterior': 'BSB' },
  changes: [
    { field: 'status', from: 'BUILD_LOCKED', to: 'IN_PRODUCTION' },
    { field: 'configuration.exterior', from: 'PPSW', to: 'BSB' },
  ],
  occurredAt: '2026-11-28T14:00:00.000Z',
});

const vapid = { ...webPush.generateVAPIDKeys(), subject: 'mailto:ops@example.com' };

function senders(settings: Partial<SenderSettings>) {
  const made = createSenders({
    vapid,
    smtpUrl: null,
    printMail: null,
    emailFrom: 'Order Graph <notify@orders.example.com>',
    webhookTimeoutMs: 10_000,
    allowPrivateAddresses: true,
    ...settings,
  });
  cleanups.push(() => made.close());
  return made;
}

interface Received {
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** An HTTP receiver on loopback keeping each request; it answers `status` (201 unless given). */
async function receiver(status: (request: IncomingMessage) => number = () => 201) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(status(request)).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** What a browser holds for a push subscription: its ECDH P-256 key pair and auth secret, and the subscription it gives the page. */
function browserSubscription(endpoint: string) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16).toString('base64url');
  return { ecdh, auth, address: { channel: 'WEB_PUSH' as const, endpoint, keys: { p256dh: ecdh.getPublicKey('base64url'), auth } } };
}

/**
 * What a push service checks of a request (RFC 8292): `Authorization: vapid t=<JWT>, k=<key>`,
 * the JWT signed ES256 by k, its aud the endpoint's origin, exp within a day, sub the contact.
 */
async function checkVapid(headers: IncomingMessage['headers'], origin: string) {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(headers.authorization ?? '');
  expect(match, headers.authorization).not.toBeNull();
  const [, jwt, k] = match!;
  expect(k).toBe(vapid.publicKey);
  const point = Buffer.from(k!, 'base64url');
  const key = await importJWK(
    { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') },
    'ES256',
  );
  expect(decodeProtectedHeader(jwt!).alg).toBe('ES256');
  const { payload } = await jwtVerify(jwt!, key, { audience: origin, algorithms: ['ES256'] });
  expect(payload.sub).toBe(vapid.subject);
  const now = Date.now() / 1000;
  expect(payload.exp).toBeGreaterThan(now);
  expect(payload.exp).toBeLessThanOrEqual(now + 24 * 60 * 60);
}

describe('Web Push', () => {
  it('reaches the push service with a valid VAPID JWT and a payload only the browser keys decrypt (RFC 8291)', async () => {
    const service = await receiver();
    const browser = browserSubscription(`${service.origin}/push/sub-1`);
    await senders({}).WEB_PUSH(browser.address, change);

    expect(service.received).toHaveLength(1);
    const [request] = service.received;
    expect(request!.url).toBe('/push/sub-1');
    await checkVapid(request!.headers, service.origin);
    expect(request!.headers['content-encoding']).toBe('aes128gcm');
    expect(request!.headers.ttl).toBe(String(PUSH_TTL_SECONDS));
    expect(request!.headers.topic).toBe(pushTopic(change.key));
    expect(request!.headers.topic).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(request!.headers.urgency).toBe('normal');
    // The body is ciphertext: the text is not in it.
    expect(request!.body.toString('latin1')).not.toContain('RN123');
    const plain = decrypt(request!.body, { version: 'aes128gcm', privateKey: browser.ecdh, authSecret: browser.auth });
    expect(JSON.parse(plain.toString('utf8'))).toEqual({ title: change.title, body: change.body, url: change.url, key: change.key });
    expect(JSON.parse(plain.toString('utf8')).body).toContain('Exterior: Pearl White (PPSW) → Big Sur Blue (BSB)');

    // Another browser's keys cannot read it.
    const stranger = browserSubscription(`${service.origin}/push/sub-2`);
    expect(() => decrypt(request!.body, { version: 'aes128gcm', privateKey: stranger.ecdh, authSecret: stranger.auth })).toThrow();
  });

  it('the same key gives the same Topic (a held copy is replaced, not doubled); a long body is cut to fit the push size', async () => {
    const service = await receiver();
    const browser = browserSubscription(`${service.origin}/push/sub-1`);
    const send = senders({}).WEB_PUSH;
    const long: Message = { ...change, body: 'Exterior: Big Sur Blue (BSB) → Pearl White (PPSW)\n'.repeat(400) };
    await send(browser.address, long);
    await send(browser.address, long);
    const [first, second] = service.received;
    expect(first!.headers.topic).toBe(second!.headers.topic);
    const plain = decrypt(second!.body, { version: 'aes128gcm', privateKey: browser.ecdh, authSecret: browser.auth });
    expect(plain.length).toBeLessThanOrEqual(PUSH_PAYLOAD_BYTES);
    const payload = JSON.parse(plain.toString('utf8')) as { body: string; key: string };
    expect(payload.key).toBe(long.key);
    expect(payload.body.endsWith('…')).toBe(true);
    expect(long.body.startsWith(payload.body.slice(0, -1))).toBe(true);
    // A title too long for any body leaves the body empty (the cutting ends).
    expect(JSON.parse(pushPayload({ ...long, title: 'T'.repeat(PUSH_PAYLOAD_BYTES) })).body).toBe('');
  });

  it('a subscription the push service says is gone (404, 410) fails for good; its 5xx is worth a retry', async () => {
    for (const [status, permanent] of [
      [404, true],
      [410, true],
      [503, false],
    ] as const) {
      const service = await receiver(() => status);
      const error: unknown = await senders({})
        .WEB_PUSH(browserSubscription(`${service.origin}/push/gone`).address, change)
        .catch((thrown: unknown) => thrown);
      expect(error, String(status)).toBeInstanceOf(DeliveryError);
      expect((error as DeliveryError).permanent, String(status)).toBe(permanent);
    }
  });

  it('a push endpoint on a private address is refused like a webhook URL, before any request', async () => {
    const service = await receiver();
    const error: unknown = await senders({ allowPrivateAddresses: false })
      .WEB_PUSH(browserSubscription(`https://127.0.0.1:${new URL(service.origin).port}/push/sub-1`).address, change)
      .catch((thrown: unknown) => thrown);
    expect((error as DeliveryError).permanent).toBe(true);
    expect((error as DeliveryError).message).toContain('not a public internet address');
    expect(service.received).toEqual([]);
  });

  it('without VAPID keys the channel fails every message for good', async () => {
    const service = await receiver();
    const error: unknown = await senders({ vapid: null })
      .WEB_PUSH(browserSubscription(`${service.origin}/push/sub-1`).address, change)
      .catch((thrown: unknown) => thrown);
    expect((error as DeliveryError).permanent).toBe(true);
    expect(service.received).toEqual([]);
  });
});

/** A mail as the SMTP server took it: the envelope, the headers (unfolded, by lower-case name) and the text, quoted-printable decoded. */
interface Mail {
  from: string;
  to: string[];
  headers: Record<string, string>;
  text: string;
}

function parseMail(raw: string, from: string, to: string[]): Mail {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of head!.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  let text = rest.join('\r\n\r\n');
  if (headers['content-transfer-encoding'] === 'quoted-printable')
    text = Buffer.from(
      text
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)))
        .split('')
        .map((char) => char.charCodeAt(0)),
    ).toString('utf8');
  return { from, to, headers, text: text.replace(/\r\n/g, '\n') };
}

/** An SMTP server on loopback (no TLS, no auth) keeping each mail; `reject` answers the recipient with a code. */
async function smtpServer(reject?: { code: number; message: string }) {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!reject) return callback();
      callback(Object.assign(new Error(reject.message), { responseCode: reject.code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        mails.push(
          parseMail(
            Buffer.concat(chunks).toString('utf8'),
            from,
            session.envelope.rcptTo.map(({ address }) => address),
          ),
        );
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, mails };
}

describe('e-mail', () => {
  it('the SMTP server gets one text mail to the address, from NOTIFY_EMAIL_FROM, its Message-ID made from the key', async () => {
    const smtp = await smtpServer();
    await senders({ smtpUrl: smtp.url }).EMAIL({ channel: 'EMAIL', email: 'customer@example.net' }, change);

    expect(smtp.mails).toHaveLength(1);
    const [mail] = smtp.mails;
    expect(mail!.from).toBe('notify@orders.example.com');
    expect(mail!.to).toEqual(['customer@example.net']);
    expect(mail!.headers.from).toBe('Order Graph <notify@orders.example.com>');
    expect(mail!.headers.to).toBe('customer@example.net');
    expect(mail!.headers.subject).toBe('Order RN123: in production');
    expect(mail!.headers['message-id']).toBe(`<${change.key}@orders.example.com>`);
    expect(mail!.headers['content-type']).toMatch(/^text\/plain/);
    expect(mail!.text).toBe(`${change.body}\n\n${change.url}\n`);
    expect(mail!.text).toContain('Exterior: Pearl White (PPSW) → Big Sur Blue (BSB)');
  });

  it('the same message sent again carries the same Message-ID (a retry is the same mail to the receiving side)', async () => {
    const smtp = await smtpServer();
    const send = senders({ smtpUrl: smtp.url }).EMAIL;
    await send({ channel: 'EMAIL', email: 'customer@example.net' }, change);
    await send({ channel: 'EMAIL', email: 'customer@example.net' }, change);
    const ended = messageForEnded(context, 'cust-1', 'v1.k1.session', '2026-11-28T15:00:00.000Z');
    await send({ channel: 'EMAIL', email: 'customer@example.net' }, ended);
    expect(smtp.mails.map((mail) => mail.headers['message-id'])).toEqual([
      `<${change.key}@orders.example.com>`,
      `<${change.key}@orders.example.com>`,
      `<${ended.key}@orders.example.com>`,
    ]);
  });

  it('a recipient the server refuses with 5xx fails for good; with 4xx it is worth a retry; no server is worth a retry', async () => {
    for (const [code, permanent] of [
      [550, true],
      [451, false],
    ] as const) {
      const smtp = await smtpServer({ code, message: 'not now' });
      const error: unknown = await senders({ smtpUrl: smtp.url })
        .EMAIL({ channel: 'EMAIL', email: 'customer@example.net' }, change)
        .catch((thrown: unknown) => thrown);
      expect(error, String(code)).toBeInstanceOf(DeliveryError);
      expect((error as DeliveryError).permanent, String(code)).toBe(permanent);
      expect(smtp.mails).toEqual([]);
    }
    const closed = await smtpServer();
    const port = new URL(closed.url).port;
    await new Promise((resolve) => setImmediate(resolve));
    cleanups.pop()!();
    const error: unknown = await senders({ smtpUrl: `smtp://127.0.0.1:${port}` })
      .EMAIL({ channel: 'EMAIL', email: 'customer@example.net' }, change)
      .catch((thrown: unknown) => thrown);
    expect((error as DeliveryError).permanent).toBe(false);
  });

  it('without SMTP_URL, the demo prints each mail instead (no server)', async () => {
    const printed: string[] = [];
    const test = messageForTest(context, '2026-11-28T14:00:00.000Z');
    await senders({ printMail: (text) => printed.push(text) }).EMAIL({ channel: 'EMAIL', email: 'customer@example.net' }, test);
    expect(printed).toEqual([
      [
        'E-mail to customer@example.net',
        `Subject: ${test.title}`,
        `Message-ID: <${test.key}@orders.example.com>`,
        '',
        test.body,
        '',
        test.url,
        '',
      ].join('\n'),
    ]);
  });

  it('with neither, the channel fails every message for good', async () => {
    const error: unknown = await senders({})
      .EMAIL({ channel: 'EMAIL', email: 'customer@example.net' }, change)
      .catch((thrown: unknown) => thrown);
    expect((error as DeliveryError).permanent).toBe(true);
  });
});

describe('webhook', () => {
  it('the receiver verifies the Standard Webhooks signature with the secret; the body says the change', async () => {
    const hook = await receiver(() => 204);
    const secret = newWebhookSecret();
    await senders({}).WEBHOOK({ channel: 'WEBHOOK', url: `${hook.origin}/hooks/order?x=1`, secret }, change);

    expect(hook.received).toHaveLength(1);
    const [request] = hook.received;
    expect(request!.url).toBe('/hooks/order?x=1');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-id']).toBe(change.key);
    const verified = new Webhook(secret).verify(request!.body.toString('utf8'), request!.headers as Record<string, string>);
    expect(verified).toEqual({
      type: 'order.changed',
      timestamp: change.occurredAt,
      data: { orderId: 'ord-1', title: change.title, body: change.body, url: change.url, changes: change.changes },
    });
    // Another target's secret does not verify it.
    expect(() =>
      new Webhook(newWebhookSecret()).verify(request!.body.toString('utf8'), request!.headers as Record<string, string>),
    ).toThrow();
  });

  it('each kind has its type; a test message has no order', async () => {
    const hook = await receiver(() => 200);
    const secret = newWebhookSecret();
    const send = senders({}).WEBHOOK;
    const test = messageForTest(context, '2026-11-28T14:00:00.000Z');
    await send({ channel: 'WEBHOOK', url: `${hook.origin}/h`, secret }, test);
    await send(
      { channel: 'WEBHOOK', url: `${hook.origin}/h`, secret },
      messageForEnded(context, 'cust-1', 'v1.k1.session', '2026-11-28T15:00:00.000Z'),
    );
    const bodies = hook.received.map(({ body, headers }) => new Webhook(secret).verify(body, headers as Record<string, string>));
    expect(bodies).toMatchObject([
      { type: 'notification.test', data: { orderId: null, changes: null, title: 'Test notification' } },
      { type: 'notifications.ended', data: { orderId: null, changes: null } },
    ]);
  });
});
