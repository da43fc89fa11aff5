// The response cache's ETag and its 304, against a real gateway with the cache on: a 304 is
// only ever an answer about the asking caller's own cached answer. Another caller's ETag,
// sent with another valid token, a forged one, an expired one or none, is a plain request.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type InProcessSimulator } from '../../src/simulator/server.js';
import { demoToken } from '../helpers/demo.js';
import { inProcessGateway, type TestGateway } from '../helpers/harness.js';

let simulator: InProcessSimulator;
let gateway: TestGateway;
const tokens: Record<'a' | 'b' | 'aExpired', string> = { a: '', b: '', aExpired: '' };

beforeAll(async () => {
  simulator = createSimulator({ latencyMs: 0 });
  gateway = inProcessGateway({ upstream: simulator, responseCacheTtlMs: 30_000 });
  tokens.a = await demoToken(simulator, 'ready@demo.test', { expiresInSeconds: 3600 });
  tokens.b = await demoToken(simulator, 'two-orders@demo.test', { expiresInSeconds: 3600 });
  tokens.aExpired = await demoToken(simulator, 'ready@demo.test', { expiresInSeconds: -60 });
});
afterAll(async () => {
  await gateway?.close();
  await simulator?.close();
});

const QUERY = JSON.stringify({ query: 'query Mine { orders { id reservationId } }' });

/** The query sent with these headers; its status, ETag, body and how many upstream calls it made. */
async function ask(headers: Record<string, string>) {
  simulator.clearLog();
  const response = await gateway.fetch(gateway.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: QUERY,
  });
  const body = await response.text();
  return { status: response.status, etag: response.headers.get('etag'), body, upstreamCalls: simulator.requestLog.length };
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A token with A's claims and a signature of its own making: the gateway only decodes it (the upstream verifies). */
const forged = () => `${tokens.a.split('.').slice(0, 2).join('.')}.${Buffer.from('forged').toString('base64url')}`;

describe('the response cache’s ETag is bound to its caller', () => {
  let etagA: string;
  let answerA: string;

  beforeAll(async () => {
    const first = await ask(bearer(tokens.a));
    expect(first.status).toBe(200);
    expect(first.etag).toBeTruthy();
    [etagA, answerA] = [first.etag!, first.body];
  });

  it('A’s own ETag: 304, with no upstream call', async () => {
    const again = await ask({ ...bearer(tokens.a), 'if-none-match': etagA });
    expect([again.status, again.etag, again.body, again.upstreamCalls]).toEqual([304, etagA, '', 0]);
  });

  it('A’s ETag sent by B (a valid token): 200 with B’s own data, fetched for B', async () => {
    const b = await ask({ ...bearer(tokens.b), 'if-none-match': etagA });
    expect(b.status).toBe(200);
    expect(b.upstreamCalls).toBeGreaterThan(0);
    expect(b.body).not.toBe(answerA);
    expect(JSON.parse(b.body)).toEqual({
      data: { orders: expect.arrayContaining([expect.objectContaining({ reservationId: expect.any(String) })]) },
    });
    // And B's own ETag is B's to revalidate.
    expect((await ask({ ...bearer(tokens.b), 'if-none-match': b.etag! })).status).toBe(304);
  });

  it.each([
    ['a forged token with A’s claims', () => bearer(forged())],
    ['A’s own expired token', () => bearer(tokens.aExpired)],
    ['no token', () => ({})],
  ])('A’s ETag sent with %s: no 304, and nothing of A’s', async (_, headers) => {
    const answer = await ask({ ...headers(), 'if-none-match': etagA });
    expect(answer.status).not.toBe(304);
    expect(answer.body).not.toBe(answerA);
    expect(answer.body).not.toContain('"orders":[');
  });

  it('the ETag does not show the caller’s part of the key (the hash of its token), and is a quoted validator', () => {
    expect(etagA).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(etagA).not.toContain(createHash('sha256').update(tokens.a).digest('base64url'));
  });
});
