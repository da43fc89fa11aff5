// Where a customer's URL may lead (src/notify/safe-address.ts), through the webhook sender as
// the delivery calls it, against real sockets: with private addresses refused (production),
// loopback, link-local, IPv6 loopback, IPv4-mapped, a name resolving to a private address
// (the test answers for the name: that injects the DNS answer, the guard is the real one),
// `localhost` through the system's resolver, and a name that resolves differently at connect
// time than when it was checked reach no socket. With them allowed (the demo, these local
// receivers): no redirect followed, the whole attempt under its timer, the body read to its cap.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSenders, type SenderSettings } from '../../src/notify/channels/index.js';
import { newWebhookSecret } from '../../src/notify/channels/webhook.js';
import { DeliveryError, type Message } from '../../src/notify/contracts.js';
import { checkResolved, checkTargetUrl, AddressRefused, RESPONSE_BODY_BYTES, type Resolve } from '../../src/notify/safe-address.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const message: Message = {
  kind: 'test',
  key: 'test_abc',
  title: 'Test',
  body: 'Body',
  url: '/tracker/',
  occurredAt: '2026-11-28T14:00:00.000Z',
};

function senders(settings: Partial<SenderSettings>) {
  const made = createSenders({
    vapid: null,
    smtpUrl: null,
    printMail: null,
    emailFrom: 'Order Graph <notify@example.com>',
    webhookTimeoutMs: 5_000,
    allowPrivateAddresses: false,
    ...settings,
  });
  cleanups.push(() => made.close());
  return made;
}

/** The failure of one webhook delivery to `url` (the test fails when it is delivered). */
async function failure(url: string, settings: Partial<SenderSettings> = {}): Promise<DeliveryError> {
  const error: unknown = await senders(settings)
    .WEBHOOK({ channel: 'WEBHOOK', url, secret: newWebhookSecret() }, message)
    .then(
      () => 'delivered',
      (thrown: unknown) => thrown,
    );
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

/** A TCP listener counting the connections it is given (a TLS client would open one before failing its handshake). */
async function counting(host = '127.0.0.1'): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server: Server = createTcpServer((socket) => {
    connections++;
    socket.destroy();
  });
  server.listen(0, host);
  await once(server, 'listening');
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { port: (server.address() as AddressInfo).port, connections: () => connections };
}

/** An HTTP server on loopback, its handler given each request; the requests it got are counted. */
async function receiver(handler: (request: IncomingMessage, response: ServerResponse) => void) {
  const requests: string[] = [];
  const server = createHttpServer((request, response) => {
    requests.push(request.url ?? '');
    handler(request, response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const OPENSSL = '/usr/bin/openssl';
/** Present here, or required (CI=true): the https test is skipped only on a machine without it. */
const haveOpenssl = existsSync(OPENSSL) || !!process.env.CI;

/** A self-signed certificate for `name` (P-256, a day), made by openssl. */
function selfSigned(name: string): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'safe-address-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${name}`,
        '-addext',
        `subjectAltName=DNS:${name}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A resolver answering `answers` for every name, one after the other (the last one from then on); its calls counted. */
function answering(...answers: string[][]): Resolve & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (hostname: string) => {
    calls.push(hostname);
    const addresses = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  return Object.assign(resolve, { calls });
}

describe('with private addresses refused (production)', () => {
  it.each([
    ['IPv4 loopback', '127.0.0.1', (port: number) => `https://127.0.0.1:${port}/hook`],
    ['IPv6 loopback', '::1', (port: number) => `https://[::1]:${port}/hook`],
    ['IPv4-mapped IPv6 loopback', '127.0.0.1', (port: number) => `https://[::ffff:127.0.0.1]:${port}/hook`],
    ['an IPv4 loopback written as one number', '127.0.0.1', (port: number) => `https://2130706433:${port}/hook`],
  ])('%s is refused for good before any connection', async (_name, host, url) => {
    const listener = await counting(host);
    const error = await failure(url(listener.port));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('not a public internet address');
    expect(listener.connections()).toBe(0);
  });

  it('the cloud metadata address (link-local 169.254.169.254) is refused for good, with no attempt to reach it', async () => {
    // An attempt would end in a timeout or a network error, both worth a retry: refused, it is permanent.
    const error = await failure('https://169.254.169.254/latest/meta-data/');
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('not a public internet address');
  });

  it('a name that resolves to a private address is refused at connect time; so is one with a private address among public ones', async () => {
    const listener = await counting();
    for (const answers of [['127.0.0.1'], ['93.184.215.14', '127.0.0.1'], ['10.0.0.1']]) {
      const resolve = answering(answers);
      const error = await failure(`https://hooks.example.test:${listener.port}/hook`, { resolve });
      expect(error.permanent, answers.join()).toBe(true);
      expect(error.message).toContain('not a public internet address');
      expect(resolve.calls).toEqual(['hooks.example.test']);
    }
    expect(listener.connections()).toBe(0);
  });

  it('`localhost`, through the system resolver, is refused', async () => {
    const listener = await counting();
    const error = await failure(`https://localhost:${listener.port}/hook`);
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('not a public internet address');
    expect(listener.connections()).toBe(0);
  });

  it('a name checked when added (public then) that resolves to loopback when the message goes (DNS rebinding) reaches nothing', async () => {
    const listener = await counting();
    const resolve = answering(['93.184.215.14'], ['127.0.0.1']);
    const url = `https://rebind.example.test:${listener.port}/hook`;
    await expect(checkResolved(url, { allowPrivateAddresses: false, resolve })).resolves.toBeInstanceOf(URL);
    const error = await failure(url, { resolve });
    expect(error.permanent).toBe(true);
    expect(listener.connections()).toBe(0);
    expect(resolve.calls).toEqual(['rebind.example.test', 'rebind.example.test']);
  });

  it('http is refused; the checks the graph runs when a target is added say why without the URL', async () => {
    const listener = await counting();
    const error = await failure(`http://hooks.example.test:${listener.port}/hook?token=s3cret`, { resolve: answering(['93.184.215.14']) });
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('must start with https://');
    expect(error.message).not.toContain('s3cret');
    expect(listener.connections()).toBe(0);

    const policy = { allowPrivateAddresses: false, resolve: answering(['10.1.2.3']) };
    expect(() => checkTargetUrl('https://user:pw@hooks.example.test/', policy)).toThrow(AddressRefused);
    expect(() => checkTargetUrl('https://[fd00::1]/', policy)).toThrow('not a public internet address');
    expect(() => checkTargetUrl('not a url', policy)).toThrow('not a valid absolute URL');
    await expect(checkResolved('https://hooks.example.test/', policy)).rejects.toThrow('not a public internet address');
    await expect(checkResolved('https://hooks.example.test/', { allowPrivateAddresses: false, resolve: answering([]) })).rejects.toThrow(
      'does not resolve',
    );
    // A public address is let through.
    expect(checkTargetUrl('https://93.184.215.14/hook', policy).hostname).toBe('93.184.215.14');
  });
});

describe('with private addresses allowed (the demo; local receivers)', () => {
  it('a name goes through the given resolver to the address it answers', async () => {
    const hook = await receiver((_request, response) => response.writeHead(204).end());
    const resolve = answering(['127.0.0.1']);
    const send = senders({ allowPrivateAddresses: true, resolve }).WEBHOOK;
    const url = `${hook.url.replace('127.0.0.1', 'hooks.example.test')}/hook`;
    await send({ channel: 'WEBHOOK', url, secret: newWebhookSecret() }, message);
    expect(hook.requests).toEqual(['/hook']);
    expect(resolve.calls).toEqual(['hooks.example.test']);
  });

  it.skipIf(!haveOpenssl)(
    'https to a name: the certificate is checked against the name, the connection made to the address the lookup answered',
    async () => {
      const certificate = selfSigned('hooks.example.test');
      const requests: string[] = [];
      const server = createHttpsServer(certificate, (request, response) => {
        requests.push(request.url ?? '');
        response.writeHead(204).end();
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      cleanups.push(() => new Promise((resolve) => server.close(resolve)));
      const port = (server.address() as AddressInfo).port;
      // The test's certificate trusted as the system's are, for this test only.
      const trusted = getCACertificates('default');
      setDefaultCACertificates([...trusted, certificate.cert]);
      cleanups.push(() => setDefaultCACertificates(trusted));

      const send = senders({ allowPrivateAddresses: true, resolve: answering(['127.0.0.1']) }).WEBHOOK;
      await send({ channel: 'WEBHOOK', url: `https://hooks.example.test:${port}/hook`, secret: newWebhookSecret() }, message);
      expect(requests).toEqual(['/hook']);
      // Another name the lookup sends to the same address is not the certificate's: the TLS check refuses it.
      const error: unknown = await send(
        { channel: 'WEBHOOK', url: `https://other.example.test:${port}/hook`, secret: newWebhookSecret() },
        message,
      ).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(DeliveryError);
      expect((error as DeliveryError).message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
      expect(requests).toEqual(['/hook']);
    },
  );

  it('a redirect is not followed: the 3xx is a failure for good, and the address it names gets nothing', async () => {
    const target = await receiver((_request, response) => response.end('ok'));
    const redirecting = await receiver((_request, response) => {
      response.writeHead(307, { location: `${target.url}/metadata` }).end();
    });
    const error = await failure(`${redirecting.url}/hook`, { allowPrivateAddresses: true });
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('HTTP 307');
    expect(redirecting.requests).toEqual(['/hook']);
    expect(target.requests).toEqual([]);
  });

  it('a receiver that never answers fails the attempt at its timeout, worth a retry, and the connection is dropped', async () => {
    let dropped!: () => void;
    const droppedSocket = new Promise<void>((resolve) => (dropped = resolve));
    const silent = await receiver((request) => request.socket.once('close', dropped));
    const error = await failure(`${silent.url}/hook`, { allowPrivateAddresses: true, webhookTimeoutMs: 300 });
    expect(error.permanent).toBe(false);
    expect(error.message).toContain('no answer within 300 ms');
    await droppedSocket;
  });

  it('the timer covers the body too: headers at once, then a body that never ends, is a timeout', async () => {
    const trickling = await receiver((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('a');
    });
    const error = await failure(`${trickling.url}/hook`, { allowPrivateAddresses: true, webhookTimeoutMs: 300 });
    expect(error.permanent).toBe(false);
    expect(error.message).toContain('no answer within 300 ms');
  });

  it(`an endless response body is read to ${RESPONSE_BODY_BYTES} bytes, then the connection is dropped: the delivery stands`, async () => {
    let closed = false;
    let written = 0;
    const endless = await receiver((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const write = () => {
        while (!closed && response.write(chunk)) written += chunk.length;
      };
      response.on('drain', write);
      response.on('close', () => (closed = true));
      write();
    });
    // Without the cap, this would read until the timer: a failure after 60 s.
    await senders({ allowPrivateAddresses: true, webhookTimeoutMs: 60_000 }).WEBHOOK(
      { channel: 'WEBHOOK', url: `${endless.url}/hook`, secret: newWebhookSecret() },
      message,
    );
    await expect.poll(() => closed).toBe(true);
    expect(written).toBeGreaterThan(0);
  });

  it.each([
    [200, null],
    [204, null],
    [302, true],
    [400, true],
    [401, true],
    [404, true],
    [410, true],
    [408, false],
    [429, false],
    [500, false],
    [503, false],
  ])('HTTP %i: %s (null delivered, true for good, false worth a retry)', async (status, permanent) => {
    const answering = await receiver((_request, response) => response.writeHead(status).end());
    const outcome = await senders({ allowPrivateAddresses: true })
      .WEBHOOK({ channel: 'WEBHOOK', url: `${answering.url}/hook`, secret: newWebhookSecret() }, message)
      .then(
        () => null,
        (error: DeliveryError) => error.permanent,
      );
    expect(outcome).toBe(permanent);
  });
});
