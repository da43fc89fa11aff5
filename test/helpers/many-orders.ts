// A stub upstream whose customers have as many orders as their bearer says (`orders-2000`),
// for the budgets and the live streams at scale; and a live subscription over SSE that is read
// only when the test asks (a reader that stops reading holds its stream back).
import { expect } from 'vitest';
import { PER_ORDER_FIELDS } from './whole-order.js';
import { json, startStubUpstream } from './stub-upstream.js';

const BASE_TIME = Date.UTC(2026, 0, 1);

/** What a test closes after it: the upstream and the subscriptions push their close here. */
type Cleanups = Array<() => unknown>;

/** A call's kind: the customer check, the order list (a poll), or a per-order call. */
type CallKind = 'customer' | 'poll' | 'perOrder';
const kind = (path: string): CallKind => (path.endsWith('/auth/me') ? 'customer' : path.endsWith('/v2/order/user') ? 'poll' : 'perOrder');

/**
 * The upstream: a bearer `orders-N`, or `orders-N~name` (the same customer, another token),
 * is customer `orders-N` with N orders, each answer after `latencyMs` (and, when `hold` gives a
 * promise for the call's token and kind, after it settles); each order's `updatedAt` moves on with
 * `bump()`. It counts every call, and the calls in flight, per bearer.
 */
export async function manyOrdersUpstream(
  cleanups: Cleanups,
  {
    latencyMs = 5,
    trim = 'Long Range All-Wheel Drive',
    hold,
  }: { latencyMs?: number; trim?: string; hold?: (token: string, kind: CallKind) => Promise<void> | undefined } = {},
) {
  const generations = new Map<number, number>();
  const inFlight = new Map<string, number>();
  const mostInFlight = new Map<string, number>();
  const orders = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      id: `o${i}`,
      reservationId: `R-o${i}`,
      userId: 'u',
      status: 'READY_FOR_PICKUP',
      updatedAt: new Date(BASE_TIME + (generations.get(i) ?? 0) * 60_000).toISOString(),
      product: { currencyCode: 'USD', model: 'Model Y', trim },
    }));
  const stub = await startStubUpstream((request, res) => {
    const bearer = request.authorization ?? '';
    const customer = /^Bearer (orders-(\d+))/.exec(bearer);
    inFlight.set(bearer, (inFlight.get(bearer) ?? 0) + 1);
    mostInFlight.set(bearer, Math.max(mostInFlight.get(bearer) ?? 0, inFlight.get(bearer)!));
    const answer = () => {
      inFlight.set(bearer, inFlight.get(bearer)! - 1);
      if (res.destroyed) return;
      if (!customer) return json(res, 401, { code: 'UNAUTHORIZED' });
      const { path } = request;
      if (path.endsWith('/auth/me')) return json(res, 200, { id: customer[1] });
      if (path.endsWith('/v2/order/user')) return json(res, 200, orders(Number(customer[2])));
      if (path.endsWith('/order/estimate')) return json(res, 200, { orderId: 'o', currencyCode: 'USD', total: 1, amountDue: 1 });
      if (path.includes('/order-address/findAll/') || path.endsWith('/order-payments')) return json(res, 200, []);
      json(res, 404, { code: 'NOT_FOUND' });
    };
    const held = hold?.(bearer.replace(/^Bearer /, ''), kind(request.path));
    const later = () => setTimeout(answer, latencyMs);
    if (held) void held.then(later);
    else later();
  });
  cleanups.push(stub.close);
  return {
    stub,
    /** Moves the first `count` orders on by one minute. */
    bump(count = 2000) {
      for (let i = 0; i < count; i++) generations.set(i, (generations.get(i) ?? 0) + 1);
    },
    updatedAt: (generation: number) => new Date(BASE_TIME + generation * 60_000).toISOString(),
    /** The calls made with this token. */
    callsOf: (token: string) => stub.requests.filter((r) => r.authorization === `Bearer ${token}`).length,
    /** The most calls with this token there ever were in flight at once. */
    mostInFlight: (token: string) => mostInFlight.get(`Bearer ${token}`) ?? 0,
    /** Calls since the `from`th, by kind: the customer check, polls, per-order calls; of one gateway request alone when given its id. */
    calls(from = 0, requestId?: string) {
      const counts = { customer: 0, poll: 0, perOrder: 0 };
      for (const request of stub.requests.slice(from)) {
        if (!requestId || request.headers['x-request-id'] === requestId) counts[kind(request.path)] += 1;
      }
      return counts;
    },
    polls: () => stub.requests.filter((request) => kind(request.path) === 'poll').length,
  };
}

export type ManyOrdersUpstream = Awaited<ReturnType<typeof manyOrdersUpstream>>;

export interface LiveEvent {
  data: {
    orderUpdates: {
      changes: { field: string; from: string | null; to: string | null }[];
      order: Record<string, unknown> & { id: string; updatedAt: string };
    };
  } | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** A subscription over SSE, read only when asked to (a reader that stops reading holds the stream back). */
export async function subscribeSse(cleanups: Cleanups, endpoint: string, token: string, query: string) {
  const abort = new AbortController();
  cleanups.push(() => abort.abort());
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
    signal: abort.signal,
  });
  const body = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: LiveEvent[] = [];
  const updates: LiveEvent[] = [];
  let buffer = '';
  let ended = false;
  // A read not yet answered is kept for the next turn: its chunk must not be lost.
  let reading: ReturnType<typeof body.read> | undefined;
  const take = (block: string) => {
    if (/^event: complete/m.test(block)) ended = true;
    const data = /^data: (.+)$/m.exec(block)?.[1];
    if (!/^event: next/m.test(block) || !data) return;
    const event = JSON.parse(data) as LiveEvent;
    events.push(event);
    if (event.data) updates.push(event);
  };
  return {
    /** The subscribing request's id: its calls carry it upstream. */
    requestId: response.headers.get('x-request-id')!,
    /** Every event, and those with an update. */
    events,
    updates,
    /** The events without an update: errors (a failed poll's, or the stream's last). */
    failures: () => events.filter((event) => !event.data),
    ended: () => ended,
    /** Reads until the condition holds or the stream ends; false when it ended first or the time ran out. */
    async readUntil(condition: () => boolean, timeoutMs = 60_000): Promise<boolean> {
      const started = Date.now();
      while (!condition()) {
        if (ended || Date.now() - started > timeoutMs) return false;
        reading ??= body.read();
        const chunk = await Promise.race([reading, new Promise<'later'>((resolve) => setTimeout(() => resolve('later'), 1000))]);
        if (chunk === 'later') continue;
        reading = undefined;
        if (chunk.done) {
          ended = true;
          continue;
        }
        buffer += chunk.value;
        for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
          take(buffer.slice(0, at));
          buffer = buffer.slice(at + 2);
        }
      }
      return true;
    },
  };
}

/**
 * Events without an update may only be polls that failed (the stream survives them): on a
 * busy machine a 2,000-order poll now and then takes longer than UPSTREAM_TIMEOUT_MS, or
 * meets a keep-alive connection the stub had just closed.
 */
export function expectOnlyPollFailures(failures: LiveEvent[]) {
  for (const failure of failures) {
    expect(failure.errors).toEqual([
      expect.objectContaining({ extensions: { code: expect.stringMatching(/^UPSTREAM_(TIMEOUT|ERROR)$/), operation: 'orderDetails' } }),
    ]);
  }
}

/** The error codes among the events, each once. */
export const liveCodes = (events: LiveEvent[]) => [
  ...new Set(events.flatMap((event) => (event.errors ?? []).map((error) => error.extensions?.code))),
];

/** The whole order as a subscriber asks for it: every per-order call for each order. */
export const WHOLE_ORDER_UPDATES = `subscription { orderUpdates { changes { field from to } order {
  id updatedAt ${PER_ORDER_FIELDS} estimate { total { amount } } addresses { id } payments { id } } } }`;
/** Two per-order calls for each order. */
export const SMALL_UPDATES =
  'subscription { orderUpdates { changes { field from to } order { id updatedAt vehicle { vin } pickup { name } } } }';
