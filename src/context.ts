import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { YogaInitialContext } from 'graphql-yoga';
import { createLoaders, type Loaders } from './loaders.js';
import { createOperations, type Operations } from './upstream/operations.js';
import type { UpstreamHttp } from './upstream/http.js';

/** The caller as the request presents it: the bearer, and whether its JWT `exp` has passed. */
export interface Auth {
  token: string | null;
  expired: boolean;
}

/** What every resolver gets; codegen's `contextType`. */
export interface GraphQLContext {
  requestId: string;
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
export function createContextFactory(http: UpstreamHttp) {
  return ({ request }: YogaInitialContext): GraphQLContext => {
    const auth = readAuth(request.headers.get('authorization'));
    const operations = createOperations(http, auth);
    return {
      requestId: safeRequestId(request.headers.get('x-request-id')) ?? randomUUID(),
      auth,
      operations,
      loaders: createLoaders(operations),
    };
  };
}

// A caller-chosen id goes into logs: accept only a short, plain one.
const safeRequestId = (value: string | null) => (value && /^[\w.:-]{1,128}$/.test(value) ? value : null);
