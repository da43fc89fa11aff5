import { decodeJwt } from 'jose';
import type { YogaInitialContext } from 'graphql-yoga';
import { createLoaders, type Loaders } from './loaders.js';
import { createOperations, type Operations } from './upstream/operations.js';
import type { UpstreamHttp } from './upstream/http.js';
import { requestInfo, type RequestInfo } from './request-info.js';

/** The caller as the request presents it: the bearer, and whether its JWT `exp` has passed. */
export interface Auth {
  token: string | null;
  expired: boolean;
}

/** What every resolver gets; codegen's `contextType`. */
export interface GraphQLContext {
  requestInfo: RequestInfo;
  auth: Auth;
  operations: Operations;
  loaders: Loaders;
}

/**
 * Reads `Authorization: Bearer …`. The JWT is decoded, not verified (the upstream does
 * that): it only lets the gateway refuse an expired token without a round trip. A bearer
 * that is not a JWT is passed on for the upstream to judge.
 */
export function readAuth(header: string | null, nowMs = Date.now()): Auth {
  const match = header?.match(/^\s*Bearer\s+(\S+)\s*$/i);
  const token = match?.[1] ?? null;
  if (!token) return { token: null, expired: false };
  try {
    const { exp } = decodeJwt(token);
    return { token, expired: typeof exp === 'number' && exp * 1000 <= nowMs };
  } catch {
    return { token, expired: false };
  }
}

/** Builds a request's context: its caller, and operations and loaders bound to that caller. */
export function createContextFactory(http: UpstreamHttp, deadlineMs: number) {
  return ({ request }: YogaInitialContext): GraphQLContext => {
    const auth = readAuth(request.headers.get('authorization'));
    const info = requestInfo(request, deadlineMs);
    const operations = createOperations(http, auth, info);
    return {
      requestInfo: info,
      auth,
      operations,
      loaders: createLoaders(operations),
    };
  };
}

