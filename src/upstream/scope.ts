// CallScope: what one gateway request lends the upstream calls made for it, made once where it enters,
// and the CallObserver it carries (below the upstream client, which only calls it).
import { randomUUID } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { Auth } from './auth.js';
import { createCallBudget, type BudgetLimits, type CallBudget, type CallerAllowance } from './budget.js';
import type { ByteBudget } from './bytes.js';
import type { OperationName } from './contract.js';
import type { CallFailure } from './failures.js';

/** How long, and how many calls: a deadline (epoch ms) and an upstream budget. */
export interface ScopeLimits {
  /** Epoch ms; every call is cut off then, retries included. */
  readonly deadline: number;
  /** Calls, concurrency and retries still available. */
  readonly budget: CallBudget;
}

/** What a scope starts from; the limits are made fresh by `CallScope.limits`. */
export interface ScopeInit extends ScopeLimits {
  id: string;
  auth: Auth;
  acceptLanguage: string | null;
  clientAddress: string | null;
  signal?: AbortSignal;
  observer?: CallObserver;
  /** The bytes its calls' answers may take (and the answer built from them): its execution's own. */
  bytes: ByteBudget;
}

/** How a call ended, for whoever watches calls: the status (or the failure's kind), its retries, its time. */
export interface CallOutcome {
  status: number | CallFailure['kind'];
  retries: number;
  ms: number;
}

/** One watched call: headers to send with it (a traceparent), fields for its log line, and its end. */
export interface CallWatch {
  headers?: Record<string, string>;
  /** Asked for only when the call is logged. */
  logFields?(): Record<string, string>;
  end(outcome: CallOutcome): void;
}

/**
 * Watches upstream calls as they happen (traces, metrics); the observability layer provides
 * it, and the server gives each request's scope its own (`CallScope.observer`).
 */
export interface CallObserver {
  /** A call starting (a traced request's observer knows whose trace the call joins). */
  start(operation: OperationName): CallWatch;
  /** A call that was not made: the request's budget was spent, or a parameter could not be sent. */
  refused?(operation: OperationName, reason: 'budget' | 'unsendable'): void;
}

/** Two watches of one call as one: one object per call, its methods shared. */
class BothWatches implements CallWatch {
  readonly headers: Record<string, string> | undefined;
  constructor(
    private readonly a: CallWatch,
    private readonly b: CallWatch,
  ) {
    this.headers = a.headers && b.headers ? { ...a.headers, ...b.headers } : (a.headers ?? b.headers);
  }

  logFields() {
    return { ...this.a.logFields?.(), ...this.b.logFields?.() };
  }

  end(outcome: CallOutcome) {
    this.a.end(outcome);
    this.b.end(outcome);
  }
}

/** One observer that tells both of two (metrics and traces); none when there is nothing to watch (no cost at all). */
export function combineObservers(first: CallObserver | undefined, second: CallObserver | undefined): CallObserver | undefined {
  if (!first || !second) return first ?? second;
  return {
    start: (operation) => new BothWatches(first.start(operation), second.start(operation)),
    refused(operation, reason) {
      first.refused?.(operation, reason);
      second.refused?.(operation, reason);
    },
  };
}

/**
 * A client address as the per-address limits count it: an IPv6 address by its /64 (the
 * prefix one subscriber gets: every address in it is one client), an IPv4 address (mapped
 * into IPv6 or not) as itself; null for none.
 */
export function addressKey(address: string | null | undefined): string | null {
  if (!address || !ipaddr.isValid(address)) return address || null;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

/** A caller that is nobody: no bearer at all. */
const ANONYMOUS: Auth = { token: null, expired: false, expiresAt: null };

/** A call that stops when its client goes away. */
export interface Cancellable {
  cancel(): void;
}

/**
 * The calls running under one client request, cancelled together when it goes away: one
 * abort listener per request rather than one per call, shared by every scope renewed from
 * it (a subscription renews its scope for each event, and a listener per event on the one
 * long-lived signal would pile up for as long as the stream lives).
 */
class RunningCalls {
  #calls: Set<Cancellable> | undefined;
  constructor(readonly signal: AbortSignal) {}
  track(call: Cancellable): void {
    if (!this.#calls) {
      const calls = (this.#calls = new Set());
      // Listened to from the first call on: most requests that reach no call (health
      // checks, refusals) then cost the signal nothing.
      this.signal.addEventListener('abort', () => calls.forEach((each) => each.cancel()), { once: true });
    }
    this.#calls.add(call);
  }
  untrack(call: Cancellable): void {
    this.#calls?.delete(call);
  }
}

/**
 * One request's call scope: what its upstream calls need and nothing else. The verified
 * caller (`auth`, read once), the request id and language, the client address, the deadline
 * and upstream budget, the abort signal with the calls running under it, and who watches
 * the calls. The server makes it when the request arrives; the graph's context, the upstream
 * client, the caller limits and the response cache read it. What the server and the observability keep of the
 * request (its operation, errors, log fields, trace) is the server's request record, not this.
 * A live event gets one of its own by `renew`, a background poll by `forPoll`.
 */
export class CallScope implements ScopeLimits {
  readonly id: string;
  readonly auth: Auth;
  readonly acceptLanguage: string | null;
  /** The caller's address, forwarded upstream as X-Forwarded-For. */
  readonly clientAddress: string | null;
  readonly deadline: number;
  readonly budget: CallBudget;
  /** Aborted when the client goes away: calls not started are not made, running ones are aborted. */
  readonly signal: AbortSignal | undefined;
  /**
   * Watches this request's calls (metrics, traces); none when nothing watches. Made per
   * request by the server, which may close it over what it keeps of the request (the trace
   * a call's span joins): so the upstream layer passes the request's trace on without
   * knowing what a trace is, with no slot of an unknown type to cast and no table keyed by
   * scopes (a renewed scope is another object) to look it up in.
   */
  readonly observer: CallObserver | undefined;
  /** What the request holds: its upstream answers as they arrive, then its answer (bytes.ts). */
  readonly bytes: ByteBudget;
  /** The headers its calls send with this bearer, made by the upstream client at the first call (http.ts). */
  callHeaders: { bearer: string | undefined; headers: readonly string[] } | undefined = undefined;
  readonly #running: RunningCalls | undefined;

  constructor(init: ScopeInit, running?: RunningCalls) {
    this.id = init.id;
    this.auth = init.auth;
    this.acceptLanguage = init.acceptLanguage;
    this.clientAddress = init.clientAddress;
    this.deadline = init.deadline;
    this.budget = init.budget;
    this.signal = init.signal;
    this.observer = init.observer;
    this.bytes = init.bytes;
    this.#running = running ?? (init.signal && new RunningCalls(init.signal));
  }

  /** A deadline `deadlineMs` from now and a new budget within `budget` (and the caller's allowance, when limited). */
  static limits(deadlineMs: number, budget: BudgetLimits, caller?: CallerAllowance): ScopeLimits {
    return { deadline: Date.now() + deadlineMs, budget: createCallBudget(budget, caller) };
  }

  /** The scope of a live poll's own call: no client request carries it, the watcher's token does. */
  static forPoll(token: string, limits: ScopeLimits, bytes: ByteBudget, observer?: CallObserver): CallScope {
    return new CallScope({ id: randomUUID(), auth: { ...ANONYMOUS, token }, acceptLanguage: null, clientAddress: null, observer, bytes, ...limits });
  }

  /**
   * The same request (caller, id, signal, running calls, observer) under other limits, with a
   * byte budget of its own: a live event's, whose execution releases it.
   */
  renew(limits: ScopeLimits): CallScope {
    const { id, auth, acceptLanguage, clientAddress, signal, observer } = this;
    return new CallScope({ id, auth, acceptLanguage, clientAddress, signal, observer, bytes: this.bytes.renewed(), ...limits }, this.#running);
  }

  /** Cancels `call` if the client goes away before `untrack(call)`. */
  track(call: Cancellable): void {
    this.#running?.track(call);
  }

  untrack(call: Cancellable): void {
    this.#running?.untrack(call);
  }

  /** Runs `cancel` if the client goes away before the returned function is called. */
  cancelOnAbort(cancel: () => void): () => void {
    if (!this.#running) return () => undefined;
    const call = { cancel };
    this.track(call);
    return () => this.untrack(call);
  }
}
