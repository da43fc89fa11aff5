// The context every resolver gets (operations and loaders bound to the caller and the request's
// scope), and what the graph needs from the layers above: the login throttle, live updates.
import type { GatewayError } from '../errors.js';
import type { Auth } from '../upstream/auth.js';
import type { RequestScope, UpstreamHttp } from '../upstream/http.js';
import { createOperations, type Operations } from '../upstream/operations.js';
import { createLoaders, type FieldTracer, type Loaders } from './loaders.js';
import type { OrderUpdateParent } from './mappers.js';

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
 * What the events of one poll are fetched within: that poll's upstream budget, shared by all
 * of the customer's streams in this process, and a deadline from when the poll was delivered.
 */
export type LiveBudget = Pick<RequestScope, 'deadline' | 'budget'>;

/**
 * One event of a live order stream: an update, or an error the stream reports (and survives,
 * unless the stream ends with it). An update's other fields are fetched within `budget`, or,
 * for the stream's first state (null), within the subscribing request's own budget.
 */
export type LiveItem = { update: OrderUpdateParent; budget: LiveBudget | null } | { error: GatewayError };

/** Who watches: a customer the upstream has verified, with the token that proved it. */
export interface LiveWatcher {
  customerId: string;
  token: string;
  /** Epoch ms when the token expires: the stream ends then. */
  expiresAt: number | null;
  address: string | null;
  /** Only this order; all of the customer's when null. */
  orderId: string | null;
}

/** Live order updates (the live layer provides them): one upstream poll per customer, shared. */
export interface LiveOrders {
  watch(watcher: LiveWatcher): AsyncIterable<LiveItem>;
}

/** What the context is made with besides the request itself. */
export interface ContextServices {
  loginThrottle: LoginThrottle;
  live: LiveOrders;
  fieldTracer?: FieldTracer;
  /**
   * The scope a live event's fields are fetched in: the subscribing request's caller, under
   * the poll's budget and deadline, or (null: the stream's first state) under the request's
   * own budget with a deadline from now.
   */
  liveScope: (budget: LiveBudget | null) => RequestScope;
}

/** What every resolver gets; codegen's `contextType`. */
export interface GraphQLContext {
  operations: Operations;
  loaders: Loaders;
  auth: Auth;
  clientAddress: string | null;
  live: LiveOrders;
  /** Runs a login attempt through the throttle, as this request's caller. */
  throttleLogin<T>(username: string, login: () => Promise<T>): Promise<T>;
  /** Runs a token refresh through the throttle, as this request's caller. */
  throttleRefresh<T>(refreshToken: string, refresh: () => Promise<T>): Promise<T>;
  /**
   * The operations and loaders a live event's fields are fetched with: new ones for each
   * event, in one scope for all the events of one poll (that poll's budget and deadline).
   */
  liveEvent(budget: LiveBudget | null): Pick<GraphQLContext, 'operations' | 'loaders'>;
}

/**
 * A request's context: operations bound to its caller and scope, and loaders over them.
 * Made per request, so nothing a loader caches can reach another caller.
 */
export function createContext(http: UpstreamHttp, auth: Auth, scope: RequestScope, services: ContextServices): GraphQLContext {
  const bind = (boundScope: RequestScope) => {
    const operations = createOperations(http, auth, boundScope);
    return { operations, loaders: createLoaders(operations, services.fieldTracer) };
  };
  // The scopes of this stream's live events: one per poll, and one for its first state.
  const liveScopes = new WeakMap<LiveBudget, RequestScope>();
  let firstStateScope: RequestScope | undefined;
  return {
    ...bind(scope),
    auth,
    clientAddress: scope.clientAddress,
    live: services.live,
    throttleLogin: (username, login) => services.loginThrottle.attempt(username, scope.clientAddress, login),
    throttleRefresh: (refreshToken, refresh) => services.loginThrottle.refresh(refreshToken, scope.clientAddress, refresh),
    liveEvent(budget) {
      let eventScope = budget ? liveScopes.get(budget) : firstStateScope;
      if (!eventScope) {
        eventScope = services.liveScope(budget);
        if (budget) liveScopes.set(budget, eventScope);
        else firstStateScope = eventScope;
      }
      // Loaders of their own: each event of a poll is another order, so a cache shared with
      // the others would save no call and only keep every answer and every refusal of the
      // poll (about 24 MB per stream after a 2,000-order first state).
      return bind(eventScope);
    },
  };
}
