// One customer's order history as it is kept: for each order, the last state the
// gateway saw and the events in which that state changed. Kept as JSON text (in this process or
// in Redis), so its size is its length, and read back through one zod check wherever it lived.
import { z } from 'zod';
import type { FieldChange } from './mappers.js';
import { MAX_FIELD_TEXT, orderChanges, orderFieldValues, storedFieldChange, storedFieldValues, storedText } from './order-changes.js';
import { readJson } from './read-json.js';
import type { Order } from '../upstream/models.js';

/** The bounds of a history, from the HISTORY_* settings. */
export interface HistoryBounds {
  /** Events kept per order, the newest. */
  eventsPerOrder: number;
  /** Events older than this are dropped; a kept history expires this long after its last change. */
  maxAgeMs: number;
  /** The JSON bytes of one customer's history at most: past it, the oldest events go first. */
  customerBytes: number;
}

/** One event: when the gateway saw the order's new state, what changed, and its number within the order (the cursor). */
export interface StoredEvent {
  n: number;
  at: string;
  changes: FieldChange[];
}

export interface KeptOrder {
  id: string;
  /** The order's client-visible fields as text when last seen (orderFieldValues): what the next observation compares with. */
  fields: Record<string, string | null>;
  /** The number the next event gets. */
  next: number;
  /** Newest first. */
  events: StoredEvent[];
}

export interface CustomerHistory {
  orders: KeptOrder[];
}

// A history is checked entry by entry: an order or an event not of its shape is dropped alone,
// and the rest of the history stands.
/** The largest number an event is given: what its cursor holds (15 digits). */
export const MAX_EVENT_NUMBER = 999_999_999_999_999;
// How far another replica's clock may be ahead of this one: an event dated later than that was
// recorded by none (and would never age out).
const CLOCK_AHEAD_MS = 3_600_000;

const count = z.number().int().nonnegative().max(MAX_EVENT_NUMBER);
const eventSchema = z.object({ n: count, at: z.iso.datetime(), changes: z.array(storedFieldChange) });
const orderSchema = z.object({ id: storedText, fields: storedFieldValues, next: count, events: z.array(z.unknown()) });
const historySchema = z.object({ orders: z.array(z.unknown()) });

/**
 * A history read back: its value and how many of its entries (orders, events) were dropped or
 * mended for not being of their shape, or why it is no history at all (the text is never part
 * of the reason).
 */
export type ReadHistory = { ok: true; history: CustomerHistory; dropped: number } | { ok: false; reason: string };

/**
 * Parses and checks a history's text; an entry not of its shape is dropped, never thrown. An
 * order's events are its cursors: newest first, one per number, each below the order's next
 * number (else a new event would repeat one), none dated more than CLOCK_AHEAD_MS ahead.
 */
export function parseHistory(json: string, now = Date.now()): ReadHistory {
  const read = readJson(historySchema, json);
  if (!read.ok) return read;
  const orders: KeptOrder[] = [];
  const ids = new Set<string>();
  let dropped = 0;
  for (const entry of read.value.orders) {
    const order = orderSchema.safeParse(entry);
    if (!order.success || ids.has(order.data.id)) {
      dropped += 1;
      continue;
    }
    const byNumber = new Map<number, StoredEvent>();
    for (const event of order.data.events) {
      const parsed = eventSchema.safeParse(event);
      if (!parsed.success || byNumber.has(parsed.data.n) || Date.parse(parsed.data.at) > now + CLOCK_AHEAD_MS) dropped += 1;
      else byNumber.set(parsed.data.n, parsed.data);
    }
    const stored = [...byNumber.values()];
    const events = [...stored].sort((a, b) => b.n - a.n);
    if (events.length === 0) continue;
    const next = Math.max(order.data.next, events[0]!.n + 1);
    if (next !== order.data.next || events.some((event, i) => event !== stored[i])) dropped += 1;
    ids.add(order.data.id);
    orders.push({ ...order.data, next, events });
  }
  return { ok: true, history: { orders }, dropped };
}

/** What one observation did to a history: the new history, and when each observed order's current state was first seen. */
export interface Observed {
  history: CustomerHistory;
  /** By order id: the time of the order's latest event (its state now was first seen then). */
  since: Record<string, string>;
  /** Whether anything was recorded (a new order, or a change). */
  recorded: boolean;
}

/**
 * Records one observation of the customer's order list: each order not in the history gets its
 * first event (no changes), each whose fields differ from the kept state an event with what
 * changed (orderChanges, the live updates' own comparison). Orders not in the list are left
 * as they are. Nothing is trimmed here (see fit).
 */
export function observe(history: CustomerHistory, orders: readonly Order[], observedAt: string, eventsPerOrder: number): Observed {
  const byId = new Map(history.orders.map((order) => [order.id, order]));
  const since: Record<string, string> = {};
  let recorded = false;
  for (const order of orders) {
    // An id no reader would take back (storedText) is not recorded.
    if (order.id.length > MAX_FIELD_TEXT) continue;
    let kept = byId.get(order.id);
    const fields = orderFieldValues(order, kept?.fields);
    if (!kept) {
      kept = { id: order.id, fields, next: 1, events: [{ n: 0, at: observedAt, changes: [] }] };
      byId.set(order.id, kept);
      history.orders.push(kept);
      recorded = true;
    } else {
      const changes = orderChanges(kept.fields, fields);
      if (changes.length > 0) {
        kept.events.unshift({ n: kept.next, at: observedAt, changes });
        kept.next += 1;
        kept.fields = fields;
        recorded = true;
      }
    }
    kept.events.length = Math.min(kept.events.length, eventsPerOrder);
    since[order.id] = kept.events[0]?.at ?? observedAt;
  }
  return { history, since, recorded };
}

/** Drops the events older than the age bound, and the orders left with none. */
export function dropAged(history: CustomerHistory, now: number, maxAgeMs: number): CustomerHistory {
  const oldest = now - maxAgeMs;
  const orders = history.orders
    .map((order) => ({ ...order, events: order.events.filter((event) => Date.parse(event.at) >= oldest) }))
    .filter((order) => order.events.length > 0);
  return { orders };
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * The history as text within `maxBytes`: when it is larger, the orders seen for the first time
 * in `newIds` go first (a customer whose states do not fit keeps the history it has rather than
 * trading it for new ones at every observation), then the oldest events of any order; an
 * order left with no event is dropped (seen again, it starts afresh).
 */
export function fit(
  history: CustomerHistory,
  maxBytes: number,
  newIds: ReadonlySet<string> = new Set(),
): { json: string; history: CustomerHistory } {
  let orders = history.orders;
  let json = JSON.stringify({ orders });
  if (Buffer.byteLength(json) <= maxBytes) return { json, history: { orders } };
  orders = orders.filter((order) => !newIds.has(order.id));
  // Each step takes out at least the bytes it estimates; the exact size is checked after.
  let size = bytes({ orders });
  const oldestFirst = orders
    .flatMap((order) => order.events.map((event) => ({ order, event })))
    .sort((a, b) => Date.parse(a.event.at) - Date.parse(b.event.at) || a.event.n - b.event.n);
  const left = new Map(orders.map((order) => [order, order.events.length]));
  const dropped = new Set<StoredEvent>();
  for (const { order, event } of oldestFirst) {
    if (size <= maxBytes) break;
    dropped.add(event);
    size -= bytes(event) + 1;
    const remaining = left.get(order)! - 1;
    left.set(order, remaining);
    if (remaining === 0) size -= bytes({ ...order, events: [] }) + 1;
  }
  orders = orders
    .map((order) => ({ ...order, events: order.events.filter((event) => !dropped.has(event)) }))
    .filter((order) => order.events.length > 0);
  json = JSON.stringify({ orders });
  if (Buffer.byteLength(json) <= maxBytes || orders.length === 0) return { json, history: { orders } };
  // The estimate was short by a few bytes (its commas): again, a byte tighter, until it fits.
  return fit({ orders }, maxBytes - 1);
}
