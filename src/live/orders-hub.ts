// Live order updates: one upstream poll per customer, however many streams watch it (in
// every process, with a shared coordinator); only what changed is pushed. The streams are
// GraphQL subscriptions (graph/resolvers/subscription.ts).
import type { Logger } from 'pino';
import { errorFromCode, expiredTokenError, GatewayError, InternalServerError } from '../errors.js';
import type { LiveOrders, LiveWatcher } from '../graph/context.js';
import { createCallBudget, type BudgetLimits, type CallBudget, type CallerAllowance } from '../upstream/budget.js';
import type { Order } from '../upstream/models.js';
import type { ScopeLimits } from '../upstream/scope.js';
import { localCoordinator, type PollCoordinator, type PollMessage } from './coordinator.js';
import type { Customer, Watch } from './customer.js';
import { createCredentialChecks } from './credentials.js';
import { createCustomers } from './customers.js';
import { createDelivery } from './delivery.js';
import { createPoller } from './polling.js';
import { LiveStream } from './stream.js';
import { callAt } from './timer.js';

type Customers = ReturnType<typeof createCustomers>;

/** The live limits, stated here because live may not import the server; its config fills them from the LIVE_* settings. */
export interface LiveLimits {
  /** How often a customer's order list is asked for while someone watches it. */
  pollIntervalMs: number;
  /** Open streams per customer at most; past it a new one is refused (RATE_LIMITED). */
  perCustomer: number;
  /** Open streams per client address at most; past it a new one is refused (RATE_LIMITED). */
  perAddress: number;
  /** The bytes the watched customers' last snapshots may take in this process, in all. */
  snapshotBytes: number;
}

export interface OrdersHubOptions {
  limits: LiveLimits;
  /**
   * What one poll may make the upstream do, its own call and the events it delivers here
   * together (all of the customer's streams): one request's budget, and its deadline (from
   * the poll, and again from its delivery).
   */
  requestLimits: { deadlineMs: number; budget: BudgetLimits };
  /** The customer's order list, asked with one watcher's token within the poll's budget (throws a GatewayError). */
  fetchOrders: (token: string, limits: ScopeLimits) => Promise<Order[]>;
  /** The customer id the upstream says a token is (customerDetails; throws a GatewayError when refused): each stream's own token, once per poll interval. */
  checkToken: (token: string, limits: ScopeLimits) => Promise<string>;
  /** Who polls and how snapshots travel: this process alone unless given. */
  coordinator?: PollCoordinator;
  /** The customer's allowance of upstream calls in flight (the server's caller limits), which its polls' calls count in. */
  customerAllowance?: (customerId: string) => CallerAllowance;
  /** Told which of a customer's orders changed (the response cache forgets them). */
  onChanges?: (customerId: string, orderIds: string[]) => void;
  /** Records each poll's order list in the order history (none unless given): when each order's current state was first seen. */
  observe?: (orders: Order[], observedAt: string) => Promise<Record<string, string>>;
  logger?: Logger;
}

export interface OrdersHub extends LiveOrders {
  /** Ends every stream (the gateway is stopping): each ends cleanly, as a completed subscription; polls are released. */
  close(): Promise<void>;
  /**
   * Customers watched here, streams open here, the polls this process made, the bytes its
   * snapshots take, and the snapshots refused for want of room (their streams ended).
   */
  stats(): { customers: number; watchers: number; polls: number; snapshotBytes: number; snapshotsRefused: number };
}

/**
 * A new stream for the watcher: joined to its customer, or ended at once with the reason it
 * was not admitted; it ends when its token does, however far off that is.
 */
function openStream(watcher: LiveWatcher, customers: Customers, welcome: (customer: Customer, watch: Watch) => void): LiveStream {
  let customer: Customer | undefined;
  let cancelExpiry = () => {};
  const current = (orderId: string) => {
    const order = customer?.orders.get(orderId);
    const snapshot = customer?.snapshot;
    return order && snapshot ? { order, observedAt: snapshot.since?.[orderId] ?? snapshot.observedAt } : undefined;
  };
  const stream = new LiveStream(current, () => {
    cancelExpiry();
    if (customer) customers.leave(customer, watch);
  });
  const watch: Watch = { ...watcher, stream, fresh: true, held: undefined };
  try {
    customer = customers.join(watch);
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    stream.end(error);
    return stream;
  }
  // The client renews the token and subscribes again.
  if (watcher.expiresAt !== null) cancelExpiry = callAt(watcher.expiresAt, () => stream.end(expiredTokenError()));
  welcome(customer, watch);
  return stream;
}

/**
 * A new stream's current state: the customer's snapshot here, else the one another process made,
 * else the first poll's. Its token was confirmed as it subscribed, after any of these was fetched.
 */
function welcome(
  customer: Customer,
  watch: Watch,
  {
    coordinator,
    customers,
    delivery,
    logger,
  }: { coordinator: PollCoordinator; customers: Customers; delivery: ReturnType<typeof createDelivery>; logger?: Logger },
) {
  if (customer.snapshot) return delivery.sendCurrent(customer, watch);
  coordinator
    .last(customer.id)
    .then((snapshot) => {
      if (!snapshot || !customers.following(customer) || customer.snapshot || !delivery.adopt(customer, snapshot)) return;
      for (const fresh of [...customer.watches]) if (fresh.fresh) delivery.sendCurrent(customer, fresh);
    })
    // The stream stays fresh: the first poll's snapshot gives it its current state instead.
    .catch((error: unknown) =>
      logger?.error({ err: error instanceof Error ? error.message : String(error) }, 'a new live stream’s current state could not be read'),
    );
}

/**
 * The hub: each watched customer's order list is polled (polling.ts), compared with the
 * previous snapshot, and each change goes to that customer's streams everywhere
 * (delivery.ts). Polling starts with the first watcher and stops with the last; nothing of
 * it outlives them. A stream gets its customer's current state first, within its
 * subscribing request's budget; the events of each later poll share that poll's budget.
 * Failures back off and reach the streams as errors; a token the upstream refuses ends its
 * own stream.
 */
export function createOrdersHub({
  limits,
  requestLimits,
  fetchOrders,
  checkToken,
  coordinator = localCoordinator(),
  customerAllowance,
  onChanges,
  observe = async () => ({}),
  logger,
}: OrdersHubOptions): OrdersHub {
  const newLimits = (customer: Customer, budget?: CallBudget): ScopeLimits => ({
    deadline: Date.now() + requestLimits.deadlineMs,
    budget: budget ?? createCallBudget(requestLimits.budget, customerAllowance?.(customer.id)),
  });
  const customers = createCustomers({
    limits,
    coordinator,
    receive: (customer, message) => receive(customer, message),
    followed: (customer) => {
      poller.schedule(customer, 0);
      credentials.follow(customer);
    },
    forgotten: (customer) => {
      credentials.forget(customer);
      delivery.drop(customer);
    },
  });
  const refused = (watch: Watch, error: GatewayError) => watch.stream.end(error);
  const credentials = createCredentialChecks({
    intervalMs: limits.pollIntervalMs,
    checkToken,
    newLimits,
    refused,
    confirmed: (customer, watches) => delivery.release(customer, watches),
    logger,
  });
  const poller = createPoller({
    pollIntervalMs: limits.pollIntervalMs,
    fetchOrders,
    coordinator,
    observe,
    newLimits,
    following: customers.following,
    accepted: credentials.accepted,
    refused,
    logger,
  });
  const delivery = createDelivery({
    snapshotBytes: limits.snapshotBytes,
    newLimits,
    onChanges,
    forget: (customer) => void customers.forget(customer),
    checkNow: credentials.checkNow,
    logger,
  });

  function receive(customer: Customer, message: PollMessage) {
    if (!customers.following(customer)) return;
    if (message.kind === 'released') return poller.schedule(customer, 0);
    if (message.kind === 'snapshot') return delivery.deliver(customer, message.snapshot);
    for (const watch of customer.watches) watch.stream.failure(errorFromCode(message.code, message.details));
  }

  return {
    watch(watcher) {
      if (!customers.open()) throw new InternalServerError('The gateway is stopping: subscribe again shortly.');
      return openStream(watcher, customers, (customer, watch) => welcome(customer, watch, { coordinator, customers, delivery, logger }));
    },
    async close() {
      const all = customers.close();
      for (const customer of all) for (const watch of [...customer.watches]) watch.stream.end();
      await Promise.all(all.map(customers.forget));
    },
    stats: () => ({ ...customers.counts(), polls: poller.polls(), ...delivery.counts() }),
  };
}
