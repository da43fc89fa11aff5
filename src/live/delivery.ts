// How a customer's snapshot reaches its streams here: kept as the customer's current state if
// it fits under LIVE_SNAPSHOT_BYTES (else the customer's streams end), the current state to
// the streams that have none yet, and each change to the others, under one budget per poll.
import type { Logger } from 'pino';
import { BadUserInputError, RateLimitedError } from '../errors.js';
import type { ScopeLimits } from '../upstream/scope.js';
import type { CallBudget } from '../upstream/budget.js';
import type { PollSnapshot } from './coordinator.js';
import { watches, type Customer, type Watch } from './customer.js';
import { mergeChanges } from './stream.js';
import { createSnapshotBudget, snapshotBytes } from './snapshots.js';

export interface DeliveryOptions {
  snapshotBytes: number;
  /** The limits of a poll's events, with a deadline from now: the given budget (the poll's own), or a new one of the customer's. */
  newLimits: (customer: Customer, budget?: CallBudget) => ScopeLimits;
  /** Told which of a customer's orders changed (the response cache forgets them). */
  onChanges?: (customerId: string, orderIds: string[]) => void;
  /** Stops following a customer whose snapshot did not fit. */
  forget: (customer: Customer) => void;
  /** The stream holds what a poll fetched after its token was last confirmed: its token is to be checked now. */
  checkNow: (customer: Customer, watch: Watch) => void;
  logger?: Logger;
}

/** Why a customer's streams end when its snapshot does not fit: the caller's own message. */
const tooLargeError = () =>
  new RateLimitedError(
    'Your orders are too large to follow live right now: the gateway has no room for them. Query them instead, or subscribe again later.',
  );

/**
 * What a snapshot fetched at `fetchedAt` brings a stream, held until its token is confirmed
 * after that (at most one entry per order, merged); its events will take the delivery's budget
 * (the poll's), as the customer's other streams' do.
 */
function hold(watch: Watch, snapshot: PollSnapshot, changed: readonly string[], fetchedAt: number, budget: CallBudget): void {
  const held = (watch.held ??= { changes: new Map(), fetchedAt, budget });
  held.fetchedAt = Math.max(held.fetchedAt, fetchedAt);
  held.budget = budget;
  for (const orderId of changed) {
    if (!watches(watch, orderId)) continue;
    const earlier = held.changes.get(orderId);
    const changes = snapshot.changes[orderId]!;
    held.changes.set(orderId, earlier ? mergeChanges(earlier, changes) : [...changes]);
  }
}

/** A stream's first events: the current state of each order it watches (the customer has a snapshot). */
function sendCurrent(customer: Customer, watch: Watch) {
  watch.fresh = false;
  if (watch.orderId !== null && !customer.orders.has(watch.orderId)) {
    watch.stream.end(new BadUserInputError('orderId must be the id of one of your orders.'));
    return;
  }
  for (const order of customer.snapshot!.orders) if (watches(watch, order.id)) watch.stream.first(order.id);
}

export function createDelivery({ snapshotBytes: maxBytes, newLimits, onChanges, forget, checkNow, logger }: DeliveryOptions) {
  const kept = createSnapshotBudget(maxBytes);
  let refused = 0;

  /** Keeps the snapshot as the customer's current state, if it fits; else the customer's streams end and it is forgotten. */
  function adopt(customer: Customer, snapshot: PollSnapshot): boolean {
    const bytes = snapshotBytes(snapshot);
    if (kept.take(customer.id, bytes)) {
      customer.snapshot = snapshot;
      customer.orders = new Map(snapshot.orders.map((order) => [order.id, order]));
      return true;
    }
    refused += 1;
    logger?.warn(
      { bytes, keptBytes: kept.used(), maxBytes, streams: customer.watches.size },
      'live snapshot refused: no room under LIVE_SNAPSHOT_BYTES; its streams end',
    );
    for (const watch of [...customer.watches]) watch.stream.end(tooLargeError());
    forget(customer);
    return false;
  }

  return {
    adopt,
    sendCurrent,
    /**
     * A new snapshot, from this process's poll or another's: the fresh streams get the current
     * state, the others what changed; but a stream whose token was last confirmed before the
     * snapshot's orders were fetched gets nothing of it until its token is confirmed again
     * (`release`). The fetch is dated by this process's clock: its own poll's, else when the
     * snapshot arrived here (another process's clock is not compared with this one's).
     */
    deliver(customer: Customer, snapshot: PollSnapshot) {
      if (!adopt(customer, snapshot)) return;
      const ownPoll = customer.ownPoll?.observedAt === snapshot.observedAt ? customer.ownPoll : undefined;
      customer.ownPoll = undefined;
      const fetchedAt = ownPoll ? Date.parse(snapshot.observedAt) : Date.now();
      // One budget for all of the customer's streams here (the one this process's poll took its call from), a deadline from now.
      const limits = newLimits(customer, ownPoll?.budget);
      const changed = snapshot.orders.filter((order) => Object.hasOwn(snapshot.changes, order.id)).map((order) => order.id);
      for (const watch of [...customer.watches]) {
        if (watch.confirmedAt < fetchedAt) {
          hold(watch, snapshot, changed, fetchedAt, limits.budget);
          checkNow(customer, watch);
        } else if (watch.fresh) sendCurrent(customer, watch);
        else for (const orderId of changed) if (watches(watch, orderId)) watch.stream.change(orderId, snapshot.changes[orderId]!, limits);
      }
      if (changed.length > 0) onChanges?.(customer.id, changed);
    },
    /**
     * These streams' token was confirmed: what each holds goes to it, if the confirmation came
     * after its latest fetch (a fresh stream gets the current state), within the budget of the
     * delivery that held it and a deadline from now; one that holds a later fetch waits for the next.
     */
    release(customer: Customer, confirmed: Watch[]) {
      if (!customer.snapshot) return;
      for (const watch of confirmed) {
        if (!watch.held || watch.confirmedAt < watch.held.fetchedAt || !customer.watches.has(watch)) continue;
        const { changes, budget } = watch.held;
        watch.held = undefined;
        const limits = newLimits(customer, budget);
        if (watch.fresh) sendCurrent(customer, watch);
        else for (const [orderId, orderChanges] of changes) watch.stream.change(orderId, orderChanges, limits);
      }
    },
    /** The customer is no longer followed: its snapshot goes. */
    drop(customer: Customer) {
      kept.release(customer.id);
      customer.snapshot = null;
      customer.orders = new Map();
    },
    /** The bytes the snapshots kept take, and the snapshots refused. */
    counts: () => ({ snapshotBytes: kept.used(), snapshotsRefused: refused }),
  };
}
