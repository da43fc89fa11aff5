// The signed-in customer's order as the page shows it: the deferred query's payloads as they
// arrive, then kept live by the SDK's watch (each change noted, and the order read again).
import { useCallback, useEffect, useRef, useState } from 'react';
import type { OrderClient, OrderGraphError } from '@order-graph/client';
import { failureWords } from './format';
import { TrackerOrderDocument, type TrackerOrderQuery } from './gql/graphql';

export type TrackedOrder = NonNullable<NonNullable<TrackerOrderQuery['me']>['orders']>[number];

/** A change the live watch reported, as the page notes it. */
export interface ChangeNote {
  key: string;
  orderId: string;
  observedAt: string;
  changes: { field: string; from?: string | null; to?: string | null }[];
}

export interface OrderView {
  me: { id: string; firstName: string | null } | null;
  orders: TrackedOrder[];
  errors: OrderGraphError[];
  /** The query's last payload has arrived: a part still absent will not come. */
  complete: boolean;
  /** Why nothing came back at all, in words (the gateway could not be reached, or refused or ended the request as a whole). */
  failed: string | null;
}

const EMPTY: OrderView = { me: null, orders: [], errors: [], complete: false, failed: null };

/**
 * Why a reading brought no data at all, in the customer's words: an error with a code the API
 * sent for the request as a whole (too busy, an answer too large, too many at once), else the
 * transport's own message; null when data came.
 */
export function requestFailure(data: unknown, errors: readonly OrderGraphError[]): string | null {
  if (data || errors.length === 0) return null;
  const coded = errors.find((error) => error.extensions?.code);
  return coded ? failureWords(coded) : (errors[0]?.message ?? 'no answer');
}

/**
 * A new payload's orders over the ones shown: a part not yet read again keeps its last value,
 * so nothing blinks out while a reading is under way. A part that failed has no value to keep
 * (its error is the last reading's): it shows as loading until it is read again.
 */
function overlay(shown: OrderView, arriving: TrackedOrder[]): TrackedOrder[] {
  return arriving.map((order) => {
    const at = shown.orders.findIndex((previous) => previous.id === order.id);
    const kept: Record<string, unknown> = { ...shown.orders[at] };
    for (const { path } of shown.errors) if (path?.[2] === at && typeof path[3] === 'string') delete kept[path[3]];
    return { ...kept, ...order } as TrackedOrder;
  });
}

/**
 * Marks on the page's performance timeline for the first reading: `tracker:order-asked` when the
 * query starts, `tracker:first-content` with its first payload, `tracker:whole-order` with its last
 * (the measuring script reads them; nothing in the page depends on them).
 */
function mark(name: string, reading: number) {
  if (reading === 0 && performance.getEntriesByName(name).length === 0) performance.mark(name);
}

/** Reads the order with the deferred query whenever `reading` changes, each payload shown as it arrives. */
function useDeferredOrder(client: OrderClient, reading: number): OrderView {
  const [view, setView] = useState<OrderView>(EMPTY);
  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      let latest: OrderView | null = null;
      mark('tracker:order-asked', reading);
      for await (const { data, errors } of client.deferred(TrackerOrderDocument, undefined, stop.signal)) {
        if (stop.signal.aborted) return;
        const failed = requestFailure(data, errors);
        latest = {
          me: data?.me ? { id: data.me.id, firstName: data.me.firstName } : null,
          orders: data?.me?.orders ?? [],
          errors,
          complete: false,
          failed,
        };
        const next = latest;
        setView((shown) => ({ ...next, orders: overlay(shown, next.orders) }));
        mark('tracker:first-content', reading);
      }
      if (!stop.signal.aborted) mark('tracker:whole-order', reading);
      if (!stop.signal.aborted) setView((shown) => ({ ...shown, complete: true, ...(latest ? {} : { failed: 'no answer' }) }));
    })();
    return () => stop.abort();
  }, [client, reading]);
  return view;
}

/** The customer's orders, kept up to date: each change the live watch reports is noted and the order read again, as it is on `retry`. */
export function useTrackedOrder(client: OrderClient, pollIntervalMs: number) {
  const [reading, setReading] = useState(0);
  const [notes, setNotes] = useState<ChangeNote[]>([]);
  const [live, setLive] = useState<'connecting' | 'live' | 'stopped'>('connecting');
  const view = useDeferredOrder(client, reading);
  const count = useRef(0);
  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      try {
        for await (const { data } of client.watchOrders({ signal: stop.signal, minIntervalMs: pollIntervalMs })) {
          setLive('live');
          const update = data?.orderUpdates;
          // The first event per order is its state now (no changes): the query already shows it.
          if (!update || update.changes.length === 0) continue;
          const note = { key: `${++count.current}`, orderId: update.order.id, observedAt: update.observedAt, changes: update.changes };
          setNotes((shown) => [note, ...shown].slice(0, 5));
          setReading((n) => n + 1);
        }
      } catch {
        // Watching cannot go on (the tokens could not be renewed): the page says so.
      }
      if (!stop.signal.aborted) setLive('stopped');
    })();
    return () => stop.abort();
  }, [client, pollIntervalMs]);
  const retry = useCallback(() => setReading((n) => n + 1), []);
  return { view, notes, live, retry };
}
