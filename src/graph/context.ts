import type { Auth } from '../upstream/auth.js';
import type { RequestScope, UpstreamHttp } from '../upstream/http.js';
import { createOperations, type Operations } from '../upstream/operations.js';
import { createLoaders, type Loaders } from './loaders.js';

/** What every resolver gets; codegen's `contextType`. */
export interface GraphQLContext {
  operations: Operations;
  loaders: Loaders;
}

/**
 * A request's context: operations bound to its caller and scope, and loaders over them.
 * Made per request, so nothing a loader caches can reach another caller.
 */
export function createContext(http: UpstreamHttp, auth: Auth, scope: RequestScope): GraphQLContext {
  const operations = createOperations(http, auth, scope);
  return { operations, loaders: createLoaders(operations) };
}
