import type { GatewayError } from '../errors.js';
import type { Auth } from '../upstream/auth.js';
import type { RequestScope, UpstreamHttp } from '../upstream/http.js';
import { createOperations, type Operations } from '../upstream/operations.js';
import { createLoaders, type FieldTracer, type Loaders } from './loaders.js';
import type { OrderUpdateParent } from './mappers.js';

/** Admits login attempts, counting the failed ones against the username and the caller's address. */
export interface LoginThrottle {
  attempt<T>(username: string, address: string | null, login: () => Promise<T>): Promise<T>;
}

/** One event of a live order stream: an update, or an error the stream reports and survives. */
export type LiveItem = { update: OrderUpdateParent } | { error: GatewayError };

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
  /** A fresh scope (deadline, budget) for each event of a long-lived request. */
  renewScope: () => RequestScope;
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
  /** New operations and loaders with a fresh deadline and budget: each event of a subscription fetches afresh. */
  renewed(): Pick<GraphQLContext, 'operations' | 'loaders'>;
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
  return {
    ...bind(scope),
    auth,
    clientAddress: scope.clientAddress,
    live: services.live,
    throttleLogin: (username, login) => services.loginThrottle.attempt(username, scope.clientAddress, login),
    renewed: () => bind(services.renewScope()),
  };
}
