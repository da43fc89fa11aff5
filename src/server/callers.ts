// What one caller may hold of the gateway at once, whichever transport carries it (HTTP, SSE,
// multipart, WebSocket): operations in flight, and upstream calls in flight. A caller is the
// customer the upstream has verified its token as; a token not verified yet is a caller of its
// own (by its digest, from every address), until verified, when what it holds joins its
// customer's; with no token, the client address (an IPv6 /64 counting as one). A token not
// verified yet also counts against its address, so no made-up token buys a share of its own.
import { createGraphQLError, isAsyncIterable, isPromise, type Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { requestErrorExtensions } from '../error-codes.js';
import { tokenDigest, type Auth } from '../upstream/auth.js';
import { createQueue, type CallerAllowance, type CallQueue } from '../upstream/budget.js';
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

/** What one caller holds now, in its table under its key until it holds nothing. */
class Holding {
  operations = 0;
  readonly calls: CallQueue;
  /** The customer's, once this token's was joined to it: what was counted here is counted there. */
  joined: Holding | undefined;

  constructor(
    readonly table: Map<string, Holding>,
    readonly key: string,
    limits: CallerLimits,
  ) {
    this.calls = createQueue(limits.upstreamCalls);
  }

  /** Where this holding's counts are now: itself, or the customer's it joined. */
  counted(): Holding {
    return this.joined ?? this;
  }

  forgetIfIdle(): void {
    if (this.operations === 0 && this.calls.idle() && this.table.get(this.key) === this) this.table.delete(this.key);
  }

  /** A token's holding joins its customer's: its operations and calls (running and waiting) are counted there from now on. */
  join(customer: Holding): void {
    this.table.delete(this.key);
    this.joined = customer;
    customer.operations += this.operations;
    this.operations = 0;
    this.calls.join(customer.calls);
  }
}

/** Takes an operation slot of each holding (all or none): their release (once, however often called), or null when one of them holds `limit`. */
function takeOperation(limit: number, first: Holding, second?: Holding): (() => void) | null {
  if (first.operations >= limit || (second && second.operations >= limit)) {
    first.forgetIfIdle();
    second?.forgetIfIdle();
    return null;
  }
  first.operations += 1;
  if (second) second.operations += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const counted = first.counted();
    counted.operations -= 1;
    counted.forgetIfIdle();
    if (!second) return;
    second.operations -= 1;
    second.forgetIfIdle();
  };
}

/** An operation's slot once given back; nothing to give back when nothing was counted. */
const NOTHING = () => undefined;

export type Callers = ReturnType<typeof createCallers>;

export function createCallers(limits: CallerLimits) {
  const customerOf = new LRUCache<string, string>({ max: KNOWN_TOKENS, ttl: KNOWN_FOR_MS });
  // What each caller holds now: customers by id, tokens not verified yet by digest, addresses by addressKey.
  const customers = new Map<string, Holding>();
  const tokens = new Map<string, Holding>();
  const addresses = new Map<string, Holding>();
  const holding = (table: Map<string, Holding>, key: string) => {
    let found = table.get(key);
    if (!found) table.set(key, (found = new Holding(table, key, limits)));
    return found;
  };
  const runAs = <T>(caller: Holding, call: () => Promise<T>) => caller.calls.run(call).finally(() => caller.forgetIfIdle());

  /**
   * The calls of a bearer's requests: as its customer once verified; before, as the token and
   * its address both (the address read only then: a verified customer's requests never need it).
   */
  const tokenAllowance = (digest: string, address: string | null): CallerAllowance => {
    let group: string | null | undefined;
    return {
      run(call) {
        const customer = customerOf.get(digest);
        if (customer !== undefined) return runAs(holding(customers, customer), call);
        const token = holding(tokens, digest);
        group ??= addressKey(address);
        const at = group;
        // A call that waited its turn as the token's may start as its customer's: then its address no longer counts it.
        return token.calls
          .run(() => (at === null || token.joined ? call() : runAs(holding(addresses, at), call)))
          .finally(() => token.counted().forgetIfIdle());
      },
    };
  };

  return {
    limits,
    /** The upstream accepted the token as this customer's: it counts as that customer from now on, with what it holds. */
    verified(auth: Auth, customerId: string): void {
      const digest = tokenDigest(auth);
      if (digest === null || auth.expired) return;
      const ttl = auth.expiresAt === null ? KNOWN_FOR_MS : Math.min(KNOWN_FOR_MS, auth.expiresAt - Date.now());
      if (ttl <= 0) return;
      customerOf.set(digest, customerId, { ttl });
      tokens.get(digest)?.join(holding(customers, customerId));
    },
    /** The allowance of a customer the upstream verified (its live polls' calls run under it). */
    customerAllowance: (customerId: string): CallerAllowance => ({ run: (call) => runAs(holding(customers, customerId), call) }),
    /** The allowance a request's upstream calls run under, shared by all of its caller's requests and streams; none with neither a bearer nor an address. */
    allowance(auth: Auth, address: string | null): CallerAllowance | undefined {
      const digest = tokenDigest(auth);
      if (digest !== null) return tokenAllowance(digest, address);
      const group = addressKey(address);
      return group === null ? undefined : { run: (call) => runAs(holding(addresses, group), call) };
    },
    /** Takes one of the caller's operation slots: its release (once, however often called), or null when the caller holds them all. */
    takeOperation(auth: Auth, address: string | null): (() => void) | null {
      const digest = tokenDigest(auth);
      const customer = digest === null ? undefined : customerOf.get(digest);
      if (customer !== undefined) return takeOperation(limits.operations, holding(customers, customer));
      const group = addressKey(address);
      const at = group === null ? undefined : holding(addresses, group);
      if (digest !== null) return takeOperation(limits.operations, holding(tokens, digest), at);
      return at ? takeOperation(limits.operations, at) : NOTHING;
    },
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
      const scope = (args.contextValue as { scope?: CallScope }).scope;
      if (!scope) return;
      const release = callers.takeOperation(scope.auth, scope.clientAddress);
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
