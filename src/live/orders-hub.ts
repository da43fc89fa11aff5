// Live order updates: one upstream poll per customer, however many streams watch it; only
// what changed is pushed. The streams are GraphQL subscriptions (graph/resolvers/subscription.ts).
import { Repeater } from 'graphql-yoga';
import type { Logger } from 'pino';
import { BadUserInputError, expiredTokenError, GatewayError, RateLimitedError } from '../errors.js';
import type { LiveItem, LiveOrders, LiveWatcher } from '../graph/context.js';
import { orderChanges, orderFieldValues } from '../graph/order-changes.js';
import type { Order } from '../upstream/models.js';

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

/** What the hub keeps for one customer while someone watches: the streams and the last poll's orders. */
interface CustomerPoll {
  watches: Set<Watch>;
  /** Each order's client-visible fields as the last poll saw them. */
  last: Map<string, Record<string, string | null>> | null;
  orders: Order[];
  /** When the last poll answered, in ISO 8601 UTC. */
  observedAt: string;
  timer: NodeJS.Timeout | undefined;
  failures: number;
  polling: boolean;
}

export interface OrdersHub extends LiveOrders {
  /** Ends every stream (the gateway is stopping): each ends cleanly, as a completed subscription. */
  close(): void;
  /** Customers polled and streams open, for tests and metrics. */
  stats(): { customers: number; watchers: number; polls: number };
}

/**
 * The in-process hub: each customer's order list is polled with the token of one of its
 * watchers (the one that lasts longest), diffed with the previous poll, and each change is
 * pushed to that customer's streams. Polling starts with the first watcher and stops with
 * the last; nothing of it outlives them. Failures back off and reach the streams as errors;
 * a token the upstream refuses ends its own stream.
 */
export function createOrdersHub({ limits, fetchOrders, logger }: OrdersHubOptions): OrdersHub {
  const customers = new Map<string, CustomerPoll>();
  const perAddress = new Map<string, number>();
  let polls = 0;
  let closed = false;

  const schedule = (customerId: string, poll: CustomerPoll, delayMs: number) => {
    clearTimeout(poll.timer);
    poll.timer = setTimeout(() => void run(customerId, poll), delayMs).unref();
  };

  /** The watcher whose token lasts longest: the poll's credentials. */
  const pollingWatch = (poll: CustomerPoll) =>
    [...poll.watches].filter((watch) => watch.expiresAt === null || watch.expiresAt > Date.now()).sort((a, b) => (b.expiresAt ?? Infinity) - (a.expiresAt ?? Infinity))[0];

  /** A new watcher's first events: the current state of each order it watches (changes: []). */
  function publishCurrent(watch: Watch, poll: CustomerPoll) {
    watch.fresh = false;
    if (watch.orderId !== null && !poll.orders.some((order) => order.id === watch.orderId)) {
      watch.push({ error: new BadUserInputError('orderId must be the id of one of your orders.') });
      watch.end();
      return;
    }
    for (const order of poll.orders) if (watches(watch, order)) watch.push({ update: { order, changes: [], observedAt: poll.observedAt } });
  }

  /** A poll's answer: the current state to new watchers, each order's changes to the others. */
  function publish(poll: CustomerPoll, orders: Order[]) {
    const next = new Map(orders.map((order) => [order.id, orderFieldValues(order)]));
    const previous = poll.last;
    const fresh = [...poll.watches].filter((watch) => watch.fresh);
    Object.assign(poll, { last: next, orders, observedAt: new Date().toISOString() });
    for (const watch of fresh) publishCurrent(watch, poll);
    if (!previous) return;
    for (const order of orders) {
      const changes = orderChanges(previous.get(order.id) ?? {}, next.get(order.id)!);
      if (changes.length === 0) continue;
      for (const watch of poll.watches) {
        if (!fresh.includes(watch) && watches(watch, order)) watch.push({ update: { order, changes, observedAt: poll.observedAt } });
      }
    }
  }

  async function run(customerId: string, poll: CustomerPoll): Promise<void> {
    if (poll.polling || closed || customers.get(customerId) !== poll) return;
    const watch = pollingWatch(poll);
    if (!watch) return;
    poll.polling = true;
    polls += 1;
    try {
      publish(poll, await fetchOrders(watch.token));
      poll.failures = 0;
      schedule(customerId, poll, limits.pollIntervalMs);
    } catch (error) {
      const failure = error instanceof GatewayError ? error : new GatewayError('INTERNAL_SERVER_ERROR', 'Unexpected error.');
      if (failure.extensions.code === 'UNAUTHENTICATED') {
        // That watcher's token no longer passes: its stream ends; the others poll on.
        poll.watches.delete(watch);
        watch.push({ error: failure });
        watch.end();
        schedule(customerId, poll, 0);
      } else {
        poll.failures += 1;
        for (const each of poll.watches) each.push({ error: failure });
        const backoff = Math.min(limits.pollIntervalMs * 2 ** poll.failures, MAX_BACKOFF_MS);
        logger?.warn({ code: failure.extensions.code, failures: poll.failures, retryInMs: backoff }, 'live order poll failed');
        schedule(customerId, poll, backoff);
      }
    } finally {
      poll.polling = false;
    }
  }

  function join(watch: Watch): () => void {
    let poll = customers.get(watch.customerId);
    if (poll && poll.watches.size >= limits.perCustomer) {
      throw new RateLimitedError(`Too many live streams for this customer (${limits.perCustomer}): close one first.`);
    }
    if (watch.address && (perAddress.get(watch.address) ?? 0) >= limits.perAddress) {
      throw new RateLimitedError(`Too many live streams from this address (${limits.perAddress}): close one first.`);
    }
    if (!poll) {
      poll = { watches: new Set(), last: null, orders: [], observedAt: '', timer: undefined, failures: 0, polling: false };
      customers.set(watch.customerId, poll);
    }
    poll.watches.add(watch);
    if (watch.address) perAddress.set(watch.address, (perAddress.get(watch.address) ?? 0) + 1);
    if (poll.last) {
      // Someone already watches: the current state is the last poll's.
      publishCurrent(watch, poll);
    } else if (!poll.polling) {
      schedule(watch.customerId, poll, 0);
    }
    const current = poll;
    return () => {
      current.watches.delete(watch);
      if (watch.address) {
        const left = (perAddress.get(watch.address) ?? 1) - 1;
        if (left > 0) perAddress.set(watch.address, left);
        else perAddress.delete(watch.address);
      }
      if (current.watches.size === 0) {
        clearTimeout(current.timer);
        if (customers.get(watch.customerId) === current) customers.delete(watch.customerId);
      }
    };
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
          stop(error);
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
    close() {
      closed = true;
      for (const stop of open) stop();
      for (const poll of customers.values()) clearTimeout(poll.timer);
    },
    stats: () => ({ customers: customers.size, watchers: [...customers.values()].reduce((n, poll) => n + poll.watches.size, 0), polls }),
  };
}
