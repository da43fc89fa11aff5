// One live order stream, as the subscription's AsyncIterator: what its reader has yet to read
// is held as at most one pending event per order (later changes merge into it) and one poll
// failure, and each event is made only when the reader asks for it. A reader that stops
// reading therefore holds no more than its customer's order ids, however long it stops.
import type { GatewayError } from '../errors.js';
import type { LiveItem } from '../graph/context.js';
import type { ScopeLimits } from '../upstream/scope.js';
import type { FieldChange } from '../graph/mappers.js';
import type { Order } from '../upstream/models.js';

/** An order as the reader is to get it now, and when the poll saw it; undefined once it left the customer's list. */
export type CurrentOrder = (orderId: string) => { order: Order; observedAt: string } | undefined;

type Pending =
  /** `first`: the reader has had no state of this order yet; else what changed since the last event it had for it. */
  { kind: 'update'; first: boolean; changes: FieldChange[]; limits: ScopeLimits | null } | { kind: 'failure'; error: GatewayError };

// The pending poll failure's key: no order id from outside can be it.
const FAILURE = Symbol('failure');

/** Two changes of an order in a row as one: each field from its first `from` to its last `to`; a field back where it was is no change. */
export function mergeChanges(earlier: readonly FieldChange[], later: readonly FieldChange[]): FieldChange[] {
  const merged = new Map(earlier.map((change) => [change.field, { ...change }]));
  for (const change of later) {
    const before = merged.get(change.field);
    merged.set(change.field, before ? { ...before, to: change.to } : { ...change });
  }
  return [...merged.values()].filter((change) => change.from !== change.to);
}

export class LiveStream implements AsyncIterableIterator<LiveItem> {
  // Insertion-ordered: the event waiting longest goes first.
  readonly #pending = new Map<string | typeof FAILURE, Pending>();
  readonly #current: CurrentOrder;
  #onEnd: (() => void) | undefined;
  /** Set once the stream ends: the error it ends with, until the reader has had it. */
  #last: { error?: GatewayError } | undefined;
  readonly #readers: ((result: IteratorResult<LiveItem>) => void)[] = [];

  /** `onEnd` is called once, whichever way the stream ends (the reader left, or end()). */
  constructor(current: CurrentOrder, onEnd: () => void) {
    this.#current = current;
    this.#onEnd = onEnd;
  }

  /** The order's current state is to be the reader's first event for it. */
  first(orderId: string): void {
    if (this.#last) return;
    this.#pending.set(orderId, { kind: 'update', first: true, changes: [], limits: null });
    this.#wake();
  }

  /** The order changed: an event, or the change merged into the one the reader has yet to read. */
  change(orderId: string, changes: readonly FieldChange[], limits: ScopeLimits): void {
    if (this.#last) return;
    const pending = this.#pending.get(orderId);
    if (pending?.kind !== 'update') {
      this.#pending.set(orderId, { kind: 'update', first: false, changes: [...changes], limits });
    } else if (!pending.first) {
      // (An unread first state needs nothing: it is read as the order is then.)
      pending.changes = mergeChanges(pending.changes, changes);
      pending.limits = limits;
      if (pending.changes.length === 0) this.#pending.delete(orderId);
    }
    this.#wake();
  }

  /** A poll failed: an event the stream survives; only the latest unread one is kept. */
  failure(error: GatewayError): void {
    if (this.#last) return;
    this.#pending.delete(FAILURE);
    this.#pending.set(FAILURE, { kind: 'failure', error });
    this.#wake();
  }

  /** Ends the stream: nothing pending is sent, only `error` when given (then it completes). */
  end(error?: GatewayError): void {
    if (this.#last) return;
    this.#pending.clear();
    this.#last = error ? { error } : {};
    const onEnd = this.#onEnd;
    this.#onEnd = undefined;
    onEnd?.();
    this.#wake();
  }

  next(): Promise<IteratorResult<LiveItem>> {
    const result = this.#take();
    return result ? Promise.resolve(result) : new Promise((resolve) => this.#readers.push(resolve));
  }

  /** The reader left (the client went away, or the subscription was stopped). */
  return(): Promise<IteratorResult<LiveItem>> {
    this.end();
    this.#last = {};
    this.#wake();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The next event, made now; undefined while there is none yet. */
  #take(): IteratorResult<LiveItem> | undefined {
    for (const [key, pending] of this.#pending) {
      this.#pending.delete(key);
      if (pending.kind === 'failure') return { done: false, value: { error: pending.error } };
      const current = this.#current(key as string);
      if (!current) continue;
      return {
        done: false,
        value: { update: { order: current.order, changes: pending.changes, observedAt: current.observedAt }, limits: pending.limits },
      };
    }
    if (!this.#last) return undefined;
    const { error } = this.#last;
    if (!error) return { done: true, value: undefined };
    this.#last = {};
    return { done: false, value: { error } };
  }

  /** Hands events to the readers waiting for one. */
  #wake(): void {
    while (this.#readers.length > 0) {
      const result = this.#take();
      if (!result) return;
      this.#readers.shift()!(result);
    }
  }
}
