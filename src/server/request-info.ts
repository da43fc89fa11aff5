import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';
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
  /** Whether a hop's address is one of the trusted proxies (proxy-addr's compiled TRUSTED_PROXIES). */
  trustProxy: (address: string, hop: number) => boolean;
}

/** TRUSTED_PROXIES as a test of an address (none trusted for an empty list). */
export const trustedProxies = (list: readonly string[]): RequestPolicy['trustProxy'] => proxyaddr.compile([...list]);

// Keyed by the Request object, so nothing outlives it.
const infos = new WeakMap<Request, RequestInfo>();

// A caller-chosen id goes into logs and upstream headers: accept only a short, plain one.
const SAFE_ID = /^[\w.:-]{1,128}$/;
// Forwarded upstream as is: a plain language list, nothing that could smuggle a header.
const SAFE_LANGUAGE = /^[\w\s,;=.*-]{1,200}$/;

/**
 * The caller's address: the socket's, or when the socket is a trusted proxy, the nearest
 * X-Forwarded-For entry that a trusted hop added and that is not itself a trusted proxy
 * (proxy-addr). A forwarded entry that is not an IP is ignored: the hop that sent it stands
 * for the client, so no header can switch the per-address limits off.
 */
export function clientAddress(forwardedFor: string | null, socketAddress: string | undefined, trustProxy: RequestPolicy['trustProxy']): string | null {
  if (!socketAddress || !isIP(socketAddress)) return null;
  const chain = proxyaddr.all({ headers: { 'x-forwarded-for': forwardedFor ?? undefined }, socket: { remoteAddress: socketAddress } } as unknown as IncomingMessage, trustProxy);
  const trusted = chain.filter((address, hop) => hop === 0 || isIP(address));
  return trusted.at(-1) ?? socketAddress;
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
    clientAddress: clientAddress(request.headers.get('x-forwarded-for'), socketAddress, policy.trustProxy),
    signal: request.signal,
    operationName: null,
    errorCodes: new Set(),
  };
  infos.set(request, info);
  return info;
}

/**
 * The scope a live event's fields are fetched in: the subscribing request's id, caller and
 * signal, under the budget and deadline of the poll that delivered the event (shared by all of
 * that customer's streams), or, for the stream's first state (null), under the request's own
 * budget with a deadline from now (the first state may come a poll interval after subscribing).
 */
export function liveEventScope(request: RequestScope, policy: RequestPolicy, poll: Pick<RequestScope, 'deadline' | 'budget'> | null): RequestScope {
  const { id, acceptLanguage, clientAddress, signal } = request;
  return { id, acceptLanguage, clientAddress, signal, ...(poll ?? { deadline: Date.now() + policy.deadlineMs, budget: request.budget }) };
}

/** The scope of a live poll's own call: no client request carries it; its budget is the one its events share. */
export const pollScope = (poll: Pick<RequestScope, 'deadline' | 'budget'>): RequestScope => ({ id: randomUUID(), acceptLanguage: null, clientAddress: null, ...poll });

/** The info started for this request on its arrival, if it was. */
export const findRequestInfo = (request: Request): RequestInfo | undefined => infos.get(request);

/** The info of a request that reached the GraphQL layer (it always went through the lifecycle's onRequest). */
export function requestInfo(request: Request): RequestInfo {
  const info = infos.get(request);
  if (!info) throw new Error('requestInfo: the request was not started (useRequestLifecycle must come first)');
  return info;
}
