import type { Auth } from '../upstream/auth.js';
import type { RequestScope, UpstreamHttp } from '../upstream/http.js';
import { createOperations, type Operations } from '../upstream/operations.js';
import { createLoaders, type FieldTracer, type Loaders } from './loaders.js';

/** Admits login attempts, counting the failed ones against the username and the caller's address. */
export interface LoginThrottle {
  attempt<T>(username: string, address: string | null, login: () => Promise<T>): Promise<T>;
}

/** What every resolver gets; codegen's `contextType`. */
export interface GraphQLContext {
  operations: Operations;
  loaders: Loaders;
  /** Runs a login attempt through the throttle, as this request's caller. */
  throttleLogin<T>(username: string, login: () => Promise<T>): Promise<T>;
}

/**
 * A request's context: operations bound to its caller and scope, and loaders over them.
 * Made per request, so nothing a loader caches can reach another caller.
 */
export function createContext(http: UpstreamHttp, auth: Auth, scope: RequestScope, loginThrottle: LoginThrottle, fieldTracer?: FieldTracer): GraphQLContext {
  const operations = createOperations(http, auth, scope);
  return {
    operations,
    loaders: createLoaders(operations, fieldTracer),
    throttleLogin: (username, login) => loginThrottle.attempt(username, scope.clientAddress, login),
  };
}
