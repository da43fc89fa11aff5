// Live order updates: one upstream poll per customer, however many streams watch it (in
// every process, with a shared coordinator); only what changed is pushed. The streams are
// GraphQL subscriptions (graph/resolvers/subscription.ts).
import { Repeater } from 'graphql-yoga';
import type { Logger } from 'pino';
import { BadUserInputError, errorFromCode, expiredTokenError, GatewayError, RateLimitedError } from '../errors.js';
import type { LiveItem, LiveOrders, LiveWatcher } from '../graph/context.js';
import { orderChanges, orderFieldValues } from '../graph/order-changes.js';
import type { Order } from '../upstream/models.js';
import { localCoordinator, type PollCoordinator, type PollMessage, type PollSnapshot } from './coordinator.js';

export interface LiveLimits {
  /** How often a customer's order list is asked for while someone watches it. */
  pollIntervalMs: number;
  perCustomer: number;
  perAddress: number;
}

export interface OrdersHubOptions {
  limits: LiveLimits;
  /** The customer's order list, asked with one watcher's token (throws a GatewayError). */
  fetchOrders: (token: string) => Promise<Order[]>;
  /** Who polls and how snapshots travel: this process alone unless given. */
  coordinator?: PollCoordinator;
  /** Told which of a customer's orders changed (the response cache forgets them). */
  onChanges?: (customerId: string, orderIds: string[]) => void;
  logger?: Logger;
}

const watches = (watch: LiveWatcher, order: Order) => watch.orderId === null || watch.orderId === order.id;

/** Events a stream may hold unread before it is ended. */
const MAX_UNREAD = 100;

/** The longest wait between polls after repeated upstream failures. */
const MAX_BACKOFF_MS = 5 * 60_000;

interface Watch extends LiveWatcher {
  push(item: LiveItem): void;
  end(): void;
  /** True until the watcher has had the current state of its orders. */
  fresh: boolean;
}

/** What this process keeps for one customer while someone here watches: the streams and the last snapshot. */
interface Customer {
  id: string;
  watches: Set<Watch>;
  snapshot: PollSnapshot | null;
  timer: NodeJS.Timeout | undefined;
  failures: number;
  polling: boolean;
  unfollow: () => void;
}

export interface OrdersHub extends LiveOrders {
  /** Ends every stream (the gateway is stopping): each ends cleanly, as a completed subscription; polls are released. */
  close(): Promise<void>;
  /** Customers watched here, streams open here, and the polls this process made. */
  stats(): { customers: number; watchers: number; polls: number };
}

/** The next snapshot: the orders now, and what changed since the previous one (whoever polled). */
function nextSnapshot(orders: Order[], previous: PollSnapshot | null): PollSnapshot {
  const fields = Object.fromEntries(orders.map((order) => [order.id, orderFieldValues(order)]));
  const changes = previous
    ? Object.fromEntries(orders.flatMap((order) => {
        const changed = orderChanges(previous.fields[order.id] ?? {}, fields[order.id]!);
        return changed.length > 0 ? [[order.id, changed]] : [];
      }))
    : {};
  return { observedAt: new Date().toISOString(), orders, fields, changes };
}

/**
 * The hub: each watched customer's order list is polled, once per interval across all the
 * processes that share the coordinator, with the token of one of its watchers here (the one
 * that lasts longest), compared with the previous snapshot, and each change is pushed to that
 * customer's streams everywhere. Polling starts with the first watcher and stops with the
 * last; nothing of it outlives them. Failures back off and reach the streams as errors; a
 * token the upstream refuses ends its own stream.
 */
export function createOrdersHub({ limits, fetchOrders, coordinator = localCoordinator(), onChanges, logger }: OrdersHubOptions): OrdersHub {
  const customers = new Map<string, Customer>();
  const perAddress = new Map<string, number>();
  let polls = 0;
  let closed = false;
  const hold = (delayMs: number) => delayMs + limits.pollIntervalMs;

  const schedule = (customer: Customer, delayMs: number) => {
    clearTimeout(customer.timer);
    customer.timer = setTimeout(() => void tick(customer), delayMs).unref();
  };

  /** The watcher whose token lasts longest: the poll's credentials. */
  const pollingWatch = (customer: Customer) =>
    [...customer.watches]
      .filter((watch) => watch.expiresAt === null || watch.expiresAt > Date.now())
      .sort((a, b) => (b.expiresAt ?? Infinity) - (a.expiresAt ?? Infinity))[0];

  /** A new watcher's first events: the current state of each order it watches (changes: []). */
  function sendCurrent(watch: Watch, snapshot: PollSnapshot) {
    watch.fresh = false;
    if (watch.orderId !== null && !snapshot.orders.some((order) => order.id === watch.orderId)) {
      watch.push({ error: new BadUserInputError('orderId must be the id of one of your orders.') });
      watch.end();
      return;
    }
    for (const order of snapshot.orders) if (watches(watch, order)) watch.push({ update: { order, changes: [], observedAt: snapshot.observedAt } });
  }

  /** A message about the customer, from this process's poll or another's. */
  function receive(customer: Customer, message: PollMessage) {
    if (message.kind === 'released') {
      // Its poller stopped: poll from here now, if no one else is quicker.
      if (!closed) schedule(customer, 0);
      return;
    }
    if (message.kind === 'failure') {
      for (const watch of customer.watches) watch.push({ error: errorFromCode(message.code, message.details) });
      return;
    }
    const { snapshot } = message;
    customer.snapshot = snapshot;
    const changed = new Set(Object.keys(snapshot.changes));
    for (const watch of customer.watches) {
      if (watch.fresh) {
        sendCurrent(watch, snapshot);
        continue;
      }
      for (const order of snapshot.orders) {
        if (changed.has(order.id) && watches(watch, order)) watch.push({ update: { order, changes: snapshot.changes[order.id]!, observedAt: snapshot.observedAt } });
      }
    }
    if (changed.size > 0) onChanges?.(customer.id, [...changed]);
  }

  async function tick(customer: Customer): Promise<void> {
    if (customer.polling || closed || customers.get(customer.id) !== customer) return;
    const watch = pollingWatch(customer);
    if (!watch) return;
    customer.polling = true;
    try {
      if (!(await coordinator.claim(customer.id, hold(limits.pollIntervalMs)))) {
        // Another process polls this customer; take over should it stop.
        schedule(customer, limits.pollIntervalMs);
        return;
      }
      polls += 1;
      const orders = await fetchOrders(watch.token);
      const previous = customer.snapshot ?? (await coordinator.last(customer.id));
      await coordinator.publish(customer.id, { kind: 'snapshot', snapshot: nextSnapshot(orders, previous) });
      customer.failures = 0;
      schedule(customer, limits.pollIntervalMs);
    } catch (error) {
      const failure = error instanceof GatewayError ? error : new GatewayError('INTERNAL_SERVER_ERROR', 'Unexpected error.');
      if (failure.code === 'UNAUTHENTICATED') {
        // That watcher's token no longer passes: its stream ends; the others poll on.
        customer.watches.delete(watch);
        watch.push({ error: failure });
        watch.end();
        schedule(customer, 0);
        return;
      }
      customer.failures += 1;
      const backoff = Math.min(limits.pollIntervalMs * 2 ** customer.failures, MAX_BACKOFF_MS);
      logger?.warn({ code: failure.code, failures: customer.failures, retryInMs: backoff }, 'live order poll failed');
      await coordinator.publish(customer.id, { kind: 'failure', code: failure.code, details: failure.details });
      // Keep the poll while backing off: the upstream fails for every process alike.
      await coordinator.claim(customer.id, hold(backoff));
      schedule(customer, backoff);
    } finally {
      customer.polling = false;
    }
  }

  function join(watch: Watch): () => void {
    let customer = customers.get(watch.customerId);
    if (customer && customer.watches.size >= limits.perCustomer) {
      throw new RateLimitedError(`Too many live streams for this customer (${limits.perCustomer}): close one first.`);
    }
    if (watch.address && (perAddress.get(watch.address) ?? 0) >= limits.perAddress) {
      throw new RateLimitedError(`Too many live streams from this address (${limits.perAddress}): close one first.`);
    }
    if (!customer) {
      const created: Customer = { id: watch.customerId, watches: new Set(), snapshot: null, timer: undefined, failures: 0, polling: false, unfollow: () => {} };
      created.unfollow = coordinator.follow(created.id, (message) => receive(created, message));
      customers.set(created.id, created);
      schedule(created, 0);
      customer = created;
    }
    customer.watches.add(watch);
    if (watch.address) perAddress.set(watch.address, (perAddress.get(watch.address) ?? 0) + 1);
    const current = customer;
    if (current.snapshot) sendCurrent(watch, current.snapshot);
    else {
      // Another process may already poll this customer: its last snapshot is the current state.
      void coordinator.last(current.id).then((snapshot) => {
        if (snapshot && watch.fresh && current.watches.has(watch)) sendCurrent(watch, snapshot);
      });
    }
    return () => {
      current.watches.delete(watch);
      if (watch.address) {
        const left = (perAddress.get(watch.address) ?? 1) - 1;
        if (left > 0) perAddress.set(watch.address, left);
        else perAddress.delete(watch.address);
      }
      if (current.watches.size > 0 || customers.get(current.id) !== current) return;
      forget(current);
    };
  }

  /** Stops following a customer no one here watches any more, and hands its poll over. */
  function forget(customer: Customer): Promise<void> {
    clearTimeout(customer.timer);
    customer.unfollow();
    customers.delete(customer.id);
    return coordinator.release(customer.id);
  }

  const open = new Set<() => void>();

  return {
    watch(watcher) {
      if (closed) throw new GatewayError('INTERNAL_SERVER_ERROR', 'The gateway is stopping: subscribe again shortly.');
      return new Repeater<LiveItem>(async (push, stop) => {
        let unread = 0;
        const watch: Watch = {
          ...watcher,
          fresh: true,
          push: (item) => {
            // A reader that stopped reading (its socket full) ends instead of holding events
            // without bound; subscribing again gives it the current state.
            if (++unread > MAX_UNREAD) return void stop();
            void push(item).then(() => unread--);
          },
          end: () => stop(),
        };
        let leave: () => void;
        try {
          leave = join(watch);
        } catch (error) {
          if (!(error instanceof GatewayError)) throw error;
          watch.push({ error });
          stop();
          return;
        }
        open.add(stop);
        // The stream ends when its token does: the client renews it and subscribes again.
        const expiry =
          watcher.expiresAt === null
            ? undefined
            : setTimeout(() => {
                void push({ error: expiredTokenError() });
                stop();
              }, Math.max(0, watcher.expiresAt - Date.now())).unref();
        await stop;
        clearTimeout(expiry);
        open.delete(stop);
        leave();
      });
    },
    async close() {
      closed = true;
      for (const stop of open) stop();
      await Promise.all([...customers.values()].map(forget));
    },
    stats: () => ({ customers: customers.size, watchers: [...customers.values()].reduce((n, customer) => n + customer.watches.size, 0), polls }),
  };
}
