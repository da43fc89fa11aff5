// Order history (Order.history): what the gateway records each time it reads a customer's
// order list (a query's loader, a live poll), and the pages read from it. Where the histories
// are kept is a HistoryStore: this process (history-memory.ts) or Redis (src/redis/history.ts).
import { LRUCache } from 'lru-cache';
import { BadUserInputError } from '../errors.js';
import type { Order } from '../upstream/models.js';
import { dropAged, fit, MAX_EVENT_NUMBER, observe, parseHistory, type HistoryBounds, type CustomerHistory } from './customer-history.js';
import { customerIdOf, customerOf } from './order-owner.js';
import type { OrderHistory } from './context.js';

/**
 * Where each customer's history is kept, as text. Neither method rejects: a store out of reach
 * reads as no history and writes nothing.
 */
export interface HistoryStore {
  read(customerId: string): Promise<string | null>;
  /**
   * Replaces the customer's history with what `change` makes of the current one (null: no
   * change), atomically against every other writer: `change` may be called again with a
   * newer text when another writer came first. A text that is no history reaches `change` as
   * null (the history starts afresh).
   */
  update(customerId: string, change: (current: string | null) => string | null): Promise<void>;
}

/** HISTORY=off: nothing is kept, every history is empty (a page size is still checked). */
export const NO_HISTORY: OrderHistory = {
  observe: async () => ({}),
  events: async (_order, first) => (checkPageSize(first), []),
};

/** The most events one page may hold. */
export const MAX_HISTORY_PAGE = 100;

/** Refuses a page size out of 1..MAX_HISTORY_PAGE (BAD_USER_INPUT), whether or not any history is kept. */
function checkPageSize(first: number): void {
  if (!Number.isInteger(first) || first < 1 || first > MAX_HISTORY_PAGE)
    throw new BadUserInputError(`first must be from 1 to ${MAX_HISTORY_PAGE}.`);
}

// Opaque to clients: the event's number within its order and the order's id, so a cursor of
// another order is refused rather than read as a position in this one.
const cursorOf = (orderId: string, n: number) => Buffer.from(`${n}:${orderId}`).toString('base64url');

// An event's number (at most MAX_EVENT_NUMBER's digits) and its order's id.
const CURSOR = new RegExp(`^(\\d{1,${String(MAX_EVENT_NUMBER).length}}):(.*)$`, 's');

function positionOf(cursor: string, orderId: string): number {
  const [, n, id] = CURSOR.exec(Buffer.from(cursor, 'base64url').toString()) ?? [];
  if (n === undefined || id !== orderId || cursorOf(orderId, Number(n)) !== cursor)
    throw new BadUserInputError("after must be the cursor of one of this order's events.");
  return Number(n);
}

export interface HistoryOptions {
  store: HistoryStore;
  bounds: HistoryBounds;
  /** Told when a stored history was not one (its reason only, never its text). */
  ignored?: (reason: string) => void;
  /** Told when an order list carried more than one customer id: nothing of it was recorded. */
  mixed?: () => void;
  /** Told when recording failed for a reason of the gateway's own (a bug): the request goes on without it. */
  failed?: (error: unknown) => void;
}

// Every order list read checks its customer's kept history, whose text rarely changes between
// reads: the last texts read are kept parsed beside them (the customers read most recently, up
// to this many characters of text in all), so that one seen again skips JSON.parse and the zod
// check. The text is still read from the store each time and compared: a history another
// writer changed (a replica, over Redis) is parsed afresh.
const PARSED_CUSTOMERS = 256;
const PARSED_CHARS = 1024 * 1024;

/** Freezes a parsed history all through: whatever reads it gets copies to change (dropAged), never the kept one. */
function frozen<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) frozen(child);
    Object.freeze(value);
  }
  return value;
}

/** The history over a store, within its bounds. */
export function createHistory({ store, bounds, ignored, mixed, failed }: HistoryOptions): OrderHistory {
  // By customer id: the text last read and its history, parsed and checked without a dropped entry.
  const parsedTexts = new LRUCache<string, { text: string; history: CustomerHistory }>({
    max: PARSED_CUSTOMERS,
    maxSize: PARSED_CHARS,
    sizeCalculation: ({ text }) => Math.max(1, text.length),
  });

  /**
   * A customer's kept text as a history within the age bound, and whether it had entries to
   * drop (then it is written again without them). A copy each time (dropAged makes new orders
   * and event lists), which its caller may change.
   */
  const read = (customerId: string, text: string | null): { history: CustomerHistory; dropped: boolean } => {
    if (text === null) return { history: { orders: [] }, dropped: false };
    const kept = parsedTexts.get(customerId);
    if (kept?.text === text) return { history: dropAged(kept.history, Date.now(), bounds.maxAgeMs), dropped: false };
    const parsed = parseHistory(text);
    if (!parsed.ok) {
      ignored?.(parsed.reason);
      return { history: { orders: [] }, dropped: true };
    }
    if (parsed.dropped > 0) ignored?.(`${parsed.dropped} of its entries were not of their shape: dropped or mended, the rest kept`);
    else if (text.length <= PARSED_CHARS) parsedTexts.set(customerId, { text, history: frozen(parsed.history) });
    return { history: dropAged(parsed.history, Date.now(), bounds.maxAgeMs), dropped: parsed.dropped > 0 };
  };

  /** One observation into the customer's history; resolves to `since` (see OrderHistory.observe). */
  async function record(customerId: string, orders: readonly Order[], observedAt: string): Promise<Record<string, string>> {
    let since: Record<string, string> = {};
    await store.update(customerId, (current) => {
      const { history, dropped } = read(customerId, current);
      const known = new Set(history.orders.map((order) => order.id));
      const observed = observe(history, orders, observedAt, bounds.eventsPerOrder);
      since = observed.since;
      if (!observed.recorded && !dropped && current !== null) return null;
      const newIds = new Set(orders.map((order) => order.id).filter((id) => !known.has(id)));
      const fitted = fit(observed.history, bounds.customerBytes, newIds);
      // What did not fit has no event to point at.
      const kept = new Set(fitted.history.orders.map((order) => order.id));
      since = Object.fromEntries(Object.entries(since).filter(([id]) => kept.has(id)));
      return fitted.json;
    });
    return since;
  }

  return {
    async observe(orders, observedAt) {
      const customerId = customerOf(orders);
      if (customerId === null) {
        if (orders.length > 0) mixed?.();
        return {};
      }
      // Never rejects (a query that does not select history does not wait for it).
      return record(customerId, orders, observedAt).catch((error: unknown) => (failed?.(error), {}));
    },

    async events(order, first, after) {
      checkPageSize(first);
      const orderId = order.id;
      const before = after == null ? Infinity : positionOf(after, orderId);
      const customerId = customerIdOf(order);
      if (customerId === null) return [];
      const history = read(customerId, await store.read(customerId)).history.orders.find((candidate) => candidate.id === orderId);
      return (history?.events ?? [])
        .filter((event) => event.n < before)
        .slice(0, first)
        .map((event) => ({ observedAt: event.at, changes: event.changes, cursor: cursorOf(orderId, event.n) }));
    },
  };
}
