// The context every resolver gets (operations and loaders bound to the caller and the request's
// scope), and what the graph needs from the layers above: the login throttle, live updates,
// notifications.
import { BadUserInputError, type GatewayError } from '../errors.js';
import type { Auth } from '../upstream/auth.js';
import type { UpstreamHttp } from '../upstream/http.js';
import { customerOf } from './order-owner.js';
import { createOperations, type Operations } from '../upstream/operations.js';
import { addressKey, type CallScope, type ScopeLimits } from '../upstream/scope.js';
import { createLoaders, type FieldTracer, type LoadStats, type Loaders } from './loaders.js';
import type { Order } from '../upstream/models.js';
import type { CodeLabels } from './code-labels.js';
import type { FieldChange, OrderUpdateParent } from './mappers.js';
/**
 * Admits credential attempts, counting the ones the upstream refused: logins against the
 * username (normalised), the caller's address and the two together; token refreshes against
 * the refresh token and the caller's address. Past a limit: RATE_LIMITED, no upstream call.
 */
export interface LoginThrottle {
  attempt<T>(username: string, address: string | null, login: () => Promise<T>): Promise<T>;
  refresh<T>(refreshToken: string, address: string | null, refresh: () => Promise<T>): Promise<T>;
}

/**
 * One event of a live order stream: an update, or an error the stream reports (and survives,
 * unless the stream ends with it). An update's other fields are fetched within `limits`: the
 * budget of the poll that saw it (shared by all of the customer's streams in this process)
 * with a deadline from its delivery, or, for the stream's first state (null), the subscribing
 * request's own budget with a deadline from now.
 */
export type LiveItem = { update: OrderUpdateParent; limits: ScopeLimits | null } | { error: GatewayError };

/** Who watches: a customer the upstream has verified, with the token that proved it. */
export interface LiveWatcher {
  customerId: string;
  token: string;
  /** Epoch ms when the token expires: the stream ends then. */
  expiresAt: number | null;
  /** Its client address as the per-address limits count it (addressKey: an IPv6 /64 as one). */
  address: string | null;
  /** Only this order; all of the customer's when null. */
  orderId: string | null;
  /** Epoch ms when the upstream's check that accepted the token began (the subscription's own): what a poll fetched before then may reach the stream. */
  confirmedAt: number;
}

/** Live order updates (the live layer provides them): one upstream poll per customer, shared. */
export interface LiveOrders {
  watch(watcher: LiveWatcher): AsyncIterable<LiveItem>;
}

/** A notification channel, as the schema names it. */
export type NotificationChannelName = 'WEB_PUSH' | 'EMAIL' | 'WEBHOOK';

/** Notifications as the schema's `Notifications` gives them, the caller's targets aside. */
export interface NotificationSettings {
  enabled: boolean;
  channels: NotificationChannelName[];
  webPushPublicKey: string | null;
  pollIntervalSeconds: number;
  maxTargets: number;
}

/** A NotificationTarget as the schema returns it (times in ISO 8601 UTC). */
export interface NotificationTargetParent {
  id: string;
  channel: NotificationChannelName;
  description: string;
  createdAt: string;
  lastDeliveredAt: string | null;
  failingSince: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
}

/** A target to add, as the caller gave it: an e-mail target's address is the account's own. */
export type NewNotificationTarget =
  { channel: 'WEB_PUSH'; endpoint: string; p256dh: string; auth: string } | { channel: 'EMAIL' } | { channel: 'WEBHOOK'; url: string };

/** The caller who adds a target, as the upstream answers for its token (the request's own calls). */
export interface NotificationCaller {
  /** customerDetails with the caller's token: who the caller is, and the account's e-mail. */
  customer(): Promise<{ id: string; email?: string | null; emailVerified?: boolean | null }>;
  /** refreshTokens with the handed-over refresh token, the caller's access token as bearer (through the refresh throttle). */
  renew(refreshToken: string): Promise<{ accessToken: string; accessExpiration: unknown; refreshToken: string }>;
}

/**
 * Notifications (src/notify/service.ts when on; notificationsOff otherwise): the caller's
 * targets, by the customer id the upstream gave for the caller's token. Bad input,
 * a channel not configured and an unverified e-mail are BAD_USER_INPUT; a limit, RATE_LIMITED.
 */
export interface Notifications {
  settings(): Promise<NotificationSettings>;
  targets(customerId: string): Promise<NotificationTargetParent[]>;
  /** Adds (or, for a push endpoint or e-mail already there, renews) a target; `secret`: a new webhook's signing secret. */
  add(
    caller: NotificationCaller,
    target: NewNotificationTarget,
    refreshToken: string | null,
  ): Promise<{ target: NotificationTargetParent; secret: string | null }>;
  /** Whether the target was there; the last one gone, the record and its tokens go. */
  remove(customerId: string, targetId: string): Promise<boolean>;
  /** Whether a test message was queued (false: no such target). */
  sendTest(customerId: string, targetId: string): Promise<boolean>;
}

/** Notifications on a gateway without them: nothing to list, every add refused. */
export const notificationsOff: Notifications = {
  settings: async () => ({ enabled: false, channels: [], webPushPublicKey: null, pollIntervalSeconds: 0, maxTargets: 0 }),
  targets: async () => [],
  add: async () => {
    throw new BadUserInputError('Notifications are off on this gateway.');
  },
  remove: async () => false,
  sendTest: async () => false,
};

/** An OrderEvent as the schema returns it. */
export interface OrderEventParent {
  observedAt: string;
  changes: FieldChange[];
  cursor: string;
}

/** Order history (history.ts makes it): what the graph records of each order list read, and reads back. */
export interface OrderHistory {
  /**
   * Records one observation of an order list (the upstream's response for one caller's
   * token), under the customer id its orders carry. Resolves, by order id, when each order's
   * current state was first seen (its latest event): a live update of that state carries
   * this time. Never rejects.
   */
  observe(orders: readonly Order[], observedAt: string): Promise<Record<string, string>>;
  /**
   * A page of the order's events, newest first: `first` of them (1..MAX_HISTORY_PAGE, else
   * BAD_USER_INPUT), older than the `after` cursor. The order is one of the caller's own
   * list; its history is read under the customer id its record carries.
   */
  events(order: Order, first: number, after: string | null | undefined): Promise<OrderEventParent[]>;
}

/** What the context is made with besides the request's scope: the gateway's services, the same for every request. */
export interface ContextServices {
  http: UpstreamHttp;
  loginThrottle: LoginThrottle;
  live: LiveOrders;
  /** Order history: each order list read is recorded, Order.history reads it. */
  history: OrderHistory;
  /** The words for the vehicle's codes: each `…Label` field reads them. */
  codeLabels: CodeLabels;
  /** Notifications: the caller's targets (off: notificationsOff). */
  notifications: Notifications;
  /** How long a request may take: a live stream's first state gets that long from when it comes. */
  deadlineMs: number;
  /** Told when the upstream accepted a caller's token as a customer's (the server's caller limits count it as that customer from then on). */
  verified?: (auth: Auth, customerId: string) => void;
}

/** What every resolver gets; codegen's `contextType`. */
export interface GraphQLContext {
  /** The request's call scope: its verified caller (`scope.auth`), address, limits and signal. */
  scope: CallScope;
  operations: Operations;
  loaders: Loaders;
  live: LiveOrders;
  history: OrderHistory;
  codeLabels: CodeLabels;
  notifications: Notifications;
  /** Resolves once this request's reading of the order list (if any) is recorded: Order.history reads after it. */
  historyRecorded(): Promise<void>;
  /** Runs a login attempt through the throttle, as this request's caller. */
  throttleLogin<T>(username: string, login: () => Promise<T>): Promise<T>;
  /** Runs a token refresh through the throttle, as this request's caller. */
  throttleRefresh<T>(refreshToken: string, refresh: () => Promise<T>): Promise<T>;
  /**
   * The context a live event's fields are resolved in: the subscribing request's, renewed
   * under the event's limits (see LiveItem), with operations and loaders of its own.
   */
  forEvent(item: LiveItem): GraphQLContext;
}

/**
 * A request's context: operations bound to its scope, and loaders over them. Made per
 * request, so nothing a loader caches can reach another caller. The loaders count their
 * loads in `loads` and trace their fields through `fieldTracer` (when the request is
 * traced): the server makes both with its record of the request, and a subscription's
 * events count and trace under the subscribing request's.
 */
export function createContext(scope: CallScope, services: ContextServices, loads: LoadStats, fieldTracer?: FieldTracer): GraphQLContext {
  const operations = createOperations(services.http, scope);
  // A stream's first state: the request's own budget, with a deadline from when it comes.
  let firstState: ScopeLimits | undefined;
  // Each order list this request reads is recorded in the history (once: the loader caches it).
  let recorded: Promise<unknown> = Promise.resolve();
  // What the upstream answers for the caller's token says who the caller is.
  const verifiedAs = (customerId: string | null) => customerId !== null && services.verified?.(scope.auth, customerId);
  const recordingOperations: Operations = {
    ...operations,
    customerDetails: async () => {
      const customer = await operations.customerDetails();
      verifiedAs(customer.id);
      return customer;
    },
    orderDetails: async () => {
      const orders = await operations.orderDetails();
      verifiedAs(customerOf(orders));
      recorded = services.history.observe(orders, new Date().toISOString());
      return orders;
    },
  };
  return {
    scope,
    operations,
    loaders: createLoaders(recordingOperations, loads, fieldTracer),
    live: services.live,
    history: services.history,
    codeLabels: services.codeLabels,
    notifications: services.notifications,
    historyRecorded: async () => void (await recorded),
    // Counted per client address as every per-address limit is: an IPv6 /64 as one.
    throttleLogin: (username, login) => services.loginThrottle.attempt(username, addressKey(scope.clientAddress), login),
    throttleRefresh: (refreshToken, refresh) => services.loginThrottle.refresh(refreshToken, addressKey(scope.clientAddress), refresh),
    // Loaders of its own for each event: each event of a poll is another order, so a cache
    // shared with the others would save no call and only keep every response and every
    // refusal of the poll (about 24 MB per stream after a 2,000-order first state).
    forEvent(item) {
      const limits =
        ('update' in item && item.limits) || (firstState ??= { deadline: Date.now() + services.deadlineMs, budget: scope.budget });
      return createContext(scope.renew(limits), services, loads, fieldTracer);
    },
  };
}
