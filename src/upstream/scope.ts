// RequestScope: everything one gateway request lends the layers below it, made once where it enters.
import { randomUUID } from 'node:crypto';
import type { Context } from '@opentelemetry/api';
import ipaddr from 'ipaddr.js';
import type { Auth } from './auth.js';
import { createCallBudget, type BudgetLimits, type CallBudget, type CallerAllowance } from './budget.js';

/** How long, and how many calls: a deadline (epoch ms) and an upstream budget. */
export interface ScopeLimits {
  /** Epoch ms; every call is cut off then, retries included. */
  readonly deadline: number;
  /** Calls, concurrency and retries still available. */
  readonly budget: CallBudget;
}

/** How many loads a request's DataLoaders served, and how many upstream fetches that took. */
export interface LoadStats {
  loads: number;
  fetches: number;
}

/** What a scope starts from; the limits are made fresh by `RequestScope.limits`. */
export interface ScopeInit extends ScopeLimits {
  id: string;
  auth: Auth;
  acceptLanguage: string | null;
  clientAddress: string | null;
  signal?: AbortSignal;
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

/**
 * The calls running under one client request, cancelled together when it goes away: one
 * abort listener per request rather than one per call, shared by every scope renewed from
 * it (a subscription renews its scope for each event, and a listener per event on the one
 * long-lived signal would pile up for as long as the stream lives).
 */
class RunningCalls {
  #cancels: Set<() => void> | undefined;
  constructor(readonly signal: AbortSignal) {}
  track(cancel: () => void): () => void {
    if (!this.#cancels) {
      const cancels = (this.#cancels = new Set());
      // Listened to from the first call on: most requests that reach no call (health
      // checks, refusals) then cost the signal nothing.
      this.signal.addEventListener('abort', () => cancels.forEach((each) => each()), { once: true });
    }
    const cancels = this.#cancels;
    cancels.add(cancel);
    return () => cancels.delete(cancel);
  }
}

/**
 * One request's scope: the verified caller (`auth`, read once), its id and language, its
 * address, its deadline and upstream budget, the abort signal with the calls running under
 * it, and what its log line will say. The server makes it when the request arrives; the
 * graph's context, the upstream client, the response cache and the metrics read it.
 * A live event gets one of its own by `renew`, a background poll by `forPoll`.
 */
export class RequestScope implements ScopeLimits {
  readonly id: string;
  readonly auth: Auth;
  readonly acceptLanguage: string | null;
  /** The caller's address, forwarded upstream as X-Forwarded-For. */
  readonly clientAddress: string | null;
  readonly deadline: number;
  readonly budget: CallBudget;
  /** Aborted when the client goes away: calls not started are not made, running ones are aborted. */
  readonly signal: AbortSignal | undefined;
  readonly startedAt = Date.now();
  /** The operation's name, once known: for the log line. */
  operationName: string | null = null;
  /** The errors answered, how many of each code: for the log line and the metrics. */
  readonly errorCodes = new Map<string, number>();
  /** Whether the operation began to run: errors answered before that refused it on the way in (the metrics' phase). */
  began = false;
  /** Fields that tie the log line to other records (the trace's ids). */
  readonly logFields: Record<string, string> = {};
  /** What the request's DataLoaders did (the metrics count the loads they saved). */
  readonly loads: LoadStats = { loads: 0, fetches: 0 };
  /**
   * The request's trace context when tracing is on: its server span's, then its operation's.
   * Carried here rather than in async context, so a request no trace records pays for none.
   */
  trace: Context | undefined;
  readonly #running: RunningCalls | undefined;

  constructor(init: ScopeInit, running?: RunningCalls) {
    this.id = init.id;
    this.auth = init.auth;
    this.acceptLanguage = init.acceptLanguage;
    this.clientAddress = init.clientAddress;
    this.deadline = init.deadline;
    this.budget = init.budget;
    this.signal = init.signal;
    this.#running = running ?? (init.signal && new RunningCalls(init.signal));
  }

  /** A deadline `deadlineMs` from now and a new budget within `budget` (and the caller's allowance, when limited). */
  static limits(deadlineMs: number, budget: BudgetLimits, caller?: CallerAllowance): ScopeLimits {
    return { deadline: Date.now() + deadlineMs, budget: createCallBudget(budget, caller) };
  }

  /** The scope of a live poll's own call: no client request carries it, the watcher's token does. */
  static forPoll(token: string, limits: ScopeLimits): RequestScope {
    return new RequestScope({ id: randomUUID(), auth: { ...ANONYMOUS, token }, acceptLanguage: null, clientAddress: null, ...limits });
  }

  /** The same request (caller, id, signal, running calls) under other limits: a live event's. */
  renew(limits: ScopeLimits): RequestScope {
    const { id, auth, acceptLanguage, clientAddress, signal } = this;
    const renewed = new RequestScope({ id, auth, acceptLanguage, clientAddress, signal, ...limits }, this.#running);
    renewed.trace = this.trace;
    return renewed;
  }

  /** What the request's log line says of it, whichever transport carried it. */
  summary() {
    const { budget } = this;
    return {
      requestId: this.id,
      ...this.logFields,
      operation: this.operationName,
      ms: Date.now() - this.startedAt,
      upstreamCalls: budget.calls,
      ...(budget.refused > 0 ? { upstreamCallsRefused: budget.refused } : {}),
      errorCodes: [...this.errorCodes.keys()],
    };
  }

  /** Counts an error answered. */
  answeredError(code: string): void {
    this.errorCodes.set(code, (this.errorCodes.get(code) ?? 0) + 1);
  }

  /** Runs `cancel` if the client goes away before the returned function is called. */
  cancelOnAbort(cancel: () => void): () => void {
    return this.#running ? this.#running.track(cancel) : () => undefined;
  }
}
