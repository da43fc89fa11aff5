// How a customer's snapshot reaches its streams here: kept as the customer's current state if
// it fits under LIVE_SNAPSHOT_BYTES (else the customer's streams end), the current state to
// the streams that have none yet, and each change to the others, under one budget per poll.
import type { Logger } from 'pino';
import { BadUserInputError, RateLimitedError } from '../errors.js';
import type { ScopeLimits } from '../upstream/scope.js';
import type { CallBudget } from '../upstream/budget.js';
import type { PollSnapshot } from './coordinator.js';
import { watches, type Customer, type Watch } from './customer.js';
import { createSnapshotBudget, snapshotBytes } from './snapshots.js';

export interface DeliveryOptions {
  snapshotBytes: number;
  /** The limits of a poll's events, with a deadline from now: the given budget (the poll's own), or a new one of the customer's. */
  newLimits: (customer: Customer, budget?: CallBudget) => ScopeLimits;
  /** Told which of a customer's orders changed (the response cache forgets them). */
  onChanges?: (customerId: string, orderIds: string[]) => void;
  /** Stops following a customer whose snapshot did not fit. */
  forget: (customer: Customer) => void;
  logger?: Logger;
}

/** Why a customer's streams end when its snapshot does not fit: the caller's own message. */
const tooLargeError = () =>
  new RateLimitedError(
    'Your orders are too large to follow live right now: the gateway has no room for them. Query them instead, or subscribe again later.',
  );

export function createDelivery({ snapshotBytes: maxBytes, newLimits, onChanges, forget, logger }: DeliveryOptions) {
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

  /** A stream's first events: the current state of each order it watches. */
  function sendCurrent(customer: Customer, watch: Watch) {
    watch.fresh = false;
    if (watch.orderId !== null && !customer.orders.has(watch.orderId)) {
      watch.stream.end(new BadUserInputError('orderId must be the id of one of your orders.'));
      return;
    }
    for (const order of customer.snapshot!.orders) if (watches(watch, order.id)) watch.stream.first(order.id);
  }

  return {
    adopt,
    sendCurrent,
    /** A new snapshot, from this process's poll or another's: the fresh streams get the current state, the others what changed. */
    deliver(customer: Customer, snapshot: PollSnapshot) {
      if (!adopt(customer, snapshot)) return;
      const own = customer.ownPoll?.observedAt === snapshot.observedAt ? customer.ownPoll.budget : undefined;
      customer.ownPoll = undefined;
      // One budget for all of the customer's streams here (the one this process's poll took its call from), a deadline from now.
      const limits = newLimits(customer, own);
      const changed = snapshot.orders.filter((order) => Object.hasOwn(snapshot.changes, order.id)).map((order) => order.id);
      for (const watch of [...customer.watches]) {
        if (watch.fresh) sendCurrent(customer, watch);
        else for (const orderId of changed) if (watches(watch, orderId)) watch.stream.change(orderId, snapshot.changes[orderId]!, limits);
      }
      if (changed.length > 0) onChanges?.(customer.id, changed);
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
