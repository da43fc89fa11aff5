// What one caller may hold of the gateway at once, whichever transport carries it (HTTP, SSE,
// multipart, WebSocket): operations in flight, and upstream calls in flight. A caller is the
// customer the upstream has verified its token as, else its client address (an IPv6 /64
// counting as one): a token the upstream never accepted, or none, counts against its address,
// so no made-up token buys a share of its own.
import { createGraphQLError, isAsyncIterable, isPromise, type Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { requestErrorExtensions } from '../error-codes.js';
import { tokenDigest, type Auth } from '../upstream/auth.js';
import { createQueue, type CallerAllowance } from '../upstream/budget.js';
import { addressKey, type CallScope } from '../upstream/scope.js';

/** The caller limits (CALLER_*_IN_FLIGHT). */
export interface CallerLimits {
  /** Queries and mutations (a streamed answer until its last part) in flight at once; past it, RATE_LIMITED. */
  operations: number;
  /** Upstream calls in flight at once; the rest wait their turn, within their request's deadline. */
  upstreamCalls: number;
}

// The tokens the upstream accepted, by their hash (no token is kept), each with its customer
// until its expiry (an hour at most), the least recently used forgotten past the bound.
const KNOWN_TOKENS = 50_000;
const KNOWN_FOR_MS = 3_600_000;

export type Callers = ReturnType<typeof createCallers>;

export function createCallers(limits: CallerLimits) {
  const customers = new LRUCache<string, string>({ max: KNOWN_TOKENS, ttl: KNOWN_FOR_MS });
  // What each caller holds now; an entry goes when it holds nothing.
  const held = new Map<string, { operations: number; calls: ReturnType<typeof createQueue> }>();
  const entry = (key: string) => {
    let found = held.get(key);
    if (!found) held.set(key, (found = { operations: 0, calls: createQueue(limits.upstreamCalls) }));
    return found;
  };
  const forgetIfIdle = (key: string) => {
    const found = held.get(key);
    if (found && found.operations === 0 && found.calls.idle()) held.delete(key);
  };

  /** The caller a request counts against: its verified customer, else its address; null with neither (nothing to count by). */
  function keyOf(auth: Auth, address: string | null): string | null {
    const digest = tokenDigest(auth);
    const customer = digest === null ? undefined : customers.get(digest);
    if (customer !== undefined) return `customer:${customer}`;
    const group = addressKey(address);
    return group === null ? null : `address:${group}`;
  }

  /** The allowance of the caller `key`: its upstream calls in flight, shared by all of its requests and streams. */
  const allowanceOf = (key: string): CallerAllowance => ({
    key,
    run: (call) =>
      entry(key)
        .calls.run(call)
        .finally(() => forgetIfIdle(key)),
  });

  return {
    limits,
    keyOf,
    allowanceOf,
    /** The upstream accepted the token as this customer's: from now on it counts as that customer. */
    verified(auth: Auth, customerId: string): void {
      const digest = tokenDigest(auth);
      if (digest === null || auth.expired) return;
      const ttl = auth.expiresAt === null ? KNOWN_FOR_MS : Math.min(KNOWN_FOR_MS, auth.expiresAt - Date.now());
      if (ttl > 0) customers.set(digest, customerId, { ttl });
    },
    /** The allowance of a customer the upstream verified (its live polls' calls run under it). */
    customerAllowance: (customerId: string) => allowanceOf(`customer:${customerId}`),
    /** The allowance a request's upstream calls run under: its caller's, shared by all of that caller's requests and streams. */
    allowance(auth: Auth, address: string | null): CallerAllowance | undefined {
      const key = keyOf(auth, address);
      return key === null ? undefined : allowanceOf(key);
    },
    /** Takes one of the caller's operation slots: its release (once, however often called), or null when the caller holds them all. */
    takeOperation(key: string): (() => void) | null {
      const found = entry(key);
      if (found.operations >= limits.operations) return null;
      found.operations += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        found.operations -= 1;
        forgetIfIdle(key);
      };
    },
    /** Callers holding something now: for the tests. */
    size: () => held.size,
  };
}

/**
 * Counts each query and mutation against its caller's operations in flight, on every transport
 * (a WebSocket's operations run through the same envelop): refused with RATE_LIMITED (429) past
 * the limit, before it runs; released when its answer is complete (a streamed one's last part,
 * or the end of a stream whose client went away) or its executor threw. Subscriptions are held by the live limits instead (open streams per
 * customer and per address); their events' upstream calls count among the caller's calls.
 */
export function useCallerLimits(callers: Callers): Plugin {
  const refusal = () => ({
    errors: [
      createGraphQLError(`Too many of your operations are running at once (${callers.limits.operations}): wait for some to finish.`, {
        extensions: {
          ...requestErrorExtensions('RATE_LIMITED'),
          retryAfterSeconds: 1,
          http: { status: 429, headers: { 'retry-after': '1' } },
        },
      }),
    ],
  });
  return {
    onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const key = (args.contextValue as { scope?: CallScope }).scope?.budget.caller?.key;
      if (!key) return;
      const release = callers.takeOperation(key);
      if (!release) return void setResultAndStopExecution(refusal());
      // An executor that throws ends the operation too (after it, onExecuteDone never comes).
      setExecuteFn((executeArgs) => {
        try {
          const result = executeFn(executeArgs);
          return isPromise(result) ? result.catch((error: unknown) => (release(), Promise.reject(error))) : result;
        } catch (error) {
          release();
          throw error;
        }
      });
      return {
        onExecuteDone: ({ result }) => {
          if (!isAsyncIterable(result)) return void release();
          return { onEnd: release };
        },
      };
    },
  };
}
