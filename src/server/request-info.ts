import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { createCallBudget, type BudgetLimits } from '../upstream/budget.js';
import type { RequestScope } from '../upstream/http.js';

/** What the gateway knows about one HTTP request, from arrival to its log line. */
export interface RequestInfo extends RequestScope {
  startedAt: number;
  operationName: string | null;
  errorCodes: Set<string>;
}

/** How requests are scoped: their deadline, their upstream budget, whose X-Forwarded-For to believe. */
export interface RequestPolicy {
  deadlineMs: number;
  budget: BudgetLimits;
  /** Proxies in front of the gateway whose X-Forwarded-For entries are trusted. */
  trustedProxies: number;
}

// Keyed by the Request object, so nothing outlives it.
const infos = new WeakMap<Request, RequestInfo>();

// A caller-chosen id goes into logs and upstream headers: accept only a short, plain one.
const SAFE_ID = /^[\w.:-]{1,128}$/;
// Forwarded upstream as is: a plain language list, nothing that could smuggle a header.
const SAFE_LANGUAGE = /^[\w\s,;=.*-]{1,200}$/;

/**
 * The caller's address: the socket's, or with trusted proxies in front, the entry of
 * X-Forwarded-For that the nearest untrusted hop gave (the proxies each append one).
 */
export function clientAddress(forwardedFor: string | null, socketAddress: string | undefined, trustedProxies: number): string | null {
  const hops = [...(trustedProxies > 0 && forwardedFor ? forwardedFor.split(',').map((hop) => hop.trim()) : []), socketAddress ?? ''];
  const address = hops[Math.max(0, hops.length - 1 - trustedProxies)]!;
  return isIP(address) ? address : null;
}

/** A deadline from now and a new upstream budget. */
const freshLimits = (policy: RequestPolicy) => ({ deadline: Date.now() + policy.deadlineMs, budget: createCallBudget(policy.budget) });

/** Starts a request's info on arrival (id from X-Request-Id when it is plain); its deadline starts now. */
export function startRequestInfo(request: Request, policy: RequestPolicy, socketAddress: string | undefined): RequestInfo {
  const id = request.headers.get('x-request-id');
  const language = request.headers.get('accept-language');
  const info: RequestInfo = {
    id: id && SAFE_ID.test(id) ? id : randomUUID(),
    startedAt: Date.now(),
    ...freshLimits(policy),
    acceptLanguage: language && SAFE_LANGUAGE.test(language) ? language : null,
    clientAddress: clientAddress(request.headers.get('x-forwarded-for'), socketAddress, policy.trustedProxies),
    signal: request.signal,
    operationName: null,
    errorCodes: new Set(),
  };
  infos.set(request, info);
  return info;
}

/**
 * A new deadline and budget for a request that lives on (a subscription: each event fetches
 * afresh); its id, caller and signal stay the request's.
 */
export function renewedScope({ id, acceptLanguage, clientAddress, signal }: RequestScope, policy: RequestPolicy): RequestScope {
  return { id, acceptLanguage, clientAddress, signal, ...freshLimits(policy) };
}

/** The scope of work that no client request carries (a live poll). */
export const backgroundScope = (policy: RequestPolicy): RequestScope => ({ id: randomUUID(), acceptLanguage: null, clientAddress: null, ...freshLimits(policy) });

/** The info started for this request on its arrival, if it was. */
export const findRequestInfo = (request: Request): RequestInfo | undefined => infos.get(request);

/** The info of a request that reached the GraphQL layer (it always went through the lifecycle's onRequest). */
export function requestInfo(request: Request): RequestInfo {
  const info = infos.get(request);
  if (!info) throw new Error('requestInfo: the request was not started (useRequestLifecycle must come first)');
  return info;
}
