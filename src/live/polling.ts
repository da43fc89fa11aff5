// When and how a watched customer's order list is polled: once per interval across every
// process that shares the coordinator, with the token of one of its watchers here, backing
// off after failures. Each poll's outcome goes out through the coordinator.
import type { Logger } from 'pino';
import { errorFromCode, GatewayError } from '../errors.js';
import type { ScopeLimits } from '../upstream/scope.js';
import { orderChanges, orderFieldValues } from '../graph/order-changes.js';
import type { Order } from '../upstream/models.js';
import type { PollCoordinator, PollSnapshot } from './coordinator.js';
import type { Customer, Watch } from './customer.js';

/** The longest wait between polls after repeated upstream failures. */
const MAX_BACKOFF_MS = 5 * 60_000;

export interface PollerOptions {
  pollIntervalMs: number;
  /** The customer's order list, asked with one watcher's token within the poll's budget (throws a GatewayError). */
  fetchOrders: (token: string, limits: ScopeLimits) => Promise<Order[]>;
  coordinator: PollCoordinator;
  /** Records the poll's order list in the order history: when each order's current state was first seen, by order id. */
  observe: (orders: Order[], observedAt: string) => Promise<Record<string, string>>;
  /** A new budget (the customer's) and deadline: one poll's worth of upstream calls (its own, and its events' here). */
  newLimits: (customer: Customer) => ScopeLimits;
  /** Whether the customer is still followed here (the hub is not closed and has not forgotten it). */
  following: (customer: Customer) => boolean;
  /** The upstream accepted this token at `at` (the poll made with it, which fetched the orders then): its streams need no other check for them. */
  accepted: (customer: Customer, token: string, at: number) => void;
  /** The upstream refused that watcher's token: its stream ends with the error. */
  refused: (watch: Watch, error: GatewayError) => void;
  logger?: Logger;
}

/**
 * The next snapshot: the orders now, and what changed since the previous one (whoever
 * polled), with when each order's current state was first seen (the history's, `since`).
 */
export function nextSnapshot(
  orders: Order[],
  previous: PollSnapshot | null,
  observedAt = new Date().toISOString(),
  since: Record<string, string> = {},
): PollSnapshot {
  const fields = Object.fromEntries(orders.map((order) => [order.id, orderFieldValues(order, previous?.fields[order.id])]));
  const changes = previous
    ? Object.fromEntries(
        orders.flatMap((order) => {
          const changed = orderChanges(previous.fields[order.id] ?? {}, fields[order.id]!);
          return changed.length > 0 ? [[order.id, changed]] : [];
        }),
      )
    : {};
  return { observedAt, orders, fields, changes, ...(Object.keys(since).length > 0 ? { since } : {}) };
}

/** The watcher whose token lasts longest: the poll's credentials. */
const pollingWatch = (customer: Customer) =>
  [...customer.watches]
    .filter((watch) => watch.expiresAt === null || watch.expiresAt > Date.now())
    .sort((a, b) => (b.expiresAt ?? Infinity) - (a.expiresAt ?? Infinity))[0];

export function createPoller({
  pollIntervalMs,
  fetchOrders,
  coordinator,
  observe,
  newLimits,
  following,
  accepted,
  refused,
  logger,
}: PollerOptions) {
  let polls = 0;
  // The poll is held for an interval past its next due time, so a stopped holder is taken over.
  const hold = (delayMs: number) => delayMs + pollIntervalMs;

  const schedule = (customer: Customer, delayMs: number) => {
    clearTimeout(customer.timer);
    if (!following(customer)) return;
    customer.timer = setTimeout(() => void tick(customer), delayMs);
    customer.timer.unref();
  };

  async function tick(customer: Customer): Promise<void> {
    if (customer.polling || !following(customer)) return;
    const watch = pollingWatch(customer);
    if (!watch) return;
    customer.polling = true;
    try {
      if (!(await coordinator.claim(customer.id, hold(pollIntervalMs)))) {
        // Another process polls this customer; take over should it stop.
        schedule(customer, pollIntervalMs);
        return;
      }
      polls += 1;
      const limits = newLimits(customer);
      const orders = await fetchOrders(watch.token, limits);
      const fetchedAt = Date.now();
      accepted(customer, watch.token, fetchedAt);
      // Recorded before the snapshot is made: its updates carry the history's times (one source for both).
      const observedAt = new Date(fetchedAt).toISOString();
      const since = await observe(orders, observedAt);
      const snapshot = nextSnapshot(orders, customer.snapshot ?? (await coordinator.last(customer.id)), observedAt, since);
      customer.ownPoll = { observedAt: snapshot.observedAt, budget: limits.budget };
      await coordinator.publish(customer.id, { kind: 'snapshot', snapshot });
      customer.failures = 0;
      schedule(customer, pollIntervalMs);
    } catch (error) {
      await failed(customer, watch, error);
    } finally {
      customer.polling = false;
    }
  }

  async function failed(customer: Customer, watch: Watch, error: unknown): Promise<void> {
    const failure = error instanceof GatewayError ? error : errorFromCode('INTERNAL_SERVER_ERROR');
    if (failure.code === 'UNAUTHENTICATED') {
      // That watcher's token no longer passes: its stream ends; the others poll on.
      refused(watch, failure);
      schedule(customer, 0);
      return;
    }
    customer.failures += 1;
    const backoff = Math.min(pollIntervalMs * 2 ** customer.failures, MAX_BACKOFF_MS);
    logger?.warn({ code: failure.code, failures: customer.failures, retryInMs: backoff }, 'live order poll failed');
    await coordinator.publish(customer.id, { kind: 'failure', code: failure.code, details: failure.details });
    // Keep the poll while backing off: the upstream fails for every process alike.
    await coordinator.claim(customer.id, hold(backoff));
    schedule(customer, backoff);
  }

  return {
    /** Polls the customer after `delayMs` (0: now), unless it is no longer followed. */
    schedule,
    /** The polls this process made. */
    polls: () => polls,
  };
}
