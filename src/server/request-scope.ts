// Where a request's scope and record are made: its id, caller, address, deadline and budget, from the request as it arrives.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';
import { readAuth } from '../upstream/auth.js';
import type { BudgetLimits } from '../upstream/budget.js';
import type { ByteBudget } from '../upstream/bytes.js';
import { CallScope, type CallObserver, type ScopeInit, type ScopeLimits } from '../upstream/scope.js';
import type { Callers } from './callers.js';
import { RequestRecord } from './request-record.js';

/**
 * How requests are scoped: their deadline, their upstream budget, whose X-Forwarded-For to
 * believe, what their caller may hold, who watches their calls.
 */
export interface ScopeSettings {
  deadlineMs: number;
  budget: BudgetLimits;
  /** The callers' limits (callers.ts): each request's calls run under its caller's allowance. */
  callers?: Callers;
  /** Whether a hop's address is one of the trusted proxies (proxy-addr's compiled TRUSTED_PROXIES). */
  trustProxy: (address: string, hop: number) => boolean;
  /** The observer of one request's upstream calls (the metrics', the traces' over its record), when anything watches them. */
  observeCalls?: (record: RequestRecord) => CallObserver | undefined;
  /** A byte budget for one request (REQUEST_BYTES, within the process's IN_FLIGHT_BYTES). */
  bytes: () => ByteBudget;
}

/** A request as the server holds it: the call scope it lends the layers below, and its own record of it. */
export interface StartedRequest {
  scope: CallScope;
  record: RequestRecord;
}

/** TRUSTED_PROXIES as a test of an address (none trusted for an empty list). */
export const trustedProxies = (list: readonly string[]): ScopeSettings['trustProxy'] => proxyaddr.compile([...list]);

// A caller-chosen id goes into logs and upstream headers: accept only a short, plain one.
const SAFE_ID = /^[\w.:-]{1,128}$/;
// Forwarded upstream as is: a plain language list, nothing that could smuggle a header.
const SAFE_LANGUAGE = /^[\w\s,;=.*-]{1,200}$/;

/** A Node request's X-Forwarded-For as one list (Node gives a repeated header as an array). */
export function forwardedFor(headers: IncomingMessage['headers']): string | null {
  const value = headers['x-forwarded-for'];
  return Array.isArray(value) ? value.join(',') : (value ?? null);
}

/**
 * The caller's address: the socket's, or when the socket is a trusted proxy, the nearest
 * X-Forwarded-For entry that a trusted hop added and that is not itself a trusted proxy
 * (proxy-addr). A forwarded entry that is not an IP is ignored: the hop that sent it stands
 * for the client, so no header can switch the per-address limits off.
 */
export function clientAddress(
  forwardedFor: string | null,
  socketAddress: string | undefined,
  trustProxy: ScopeSettings['trustProxy'],
): string | null {
  if (!socketAddress || !isIP(socketAddress)) return null;
  const chain = proxyaddr.all(
    { headers: { 'x-forwarded-for': forwardedFor ?? undefined }, socket: { remoteAddress: socketAddress } } as unknown as IncomingMessage,
    trustProxy,
  );
  const trusted = chain.filter((address, hop) => hop === 0 || isIP(address));
  return trusted.at(-1) ?? socketAddress;
}

/**
 * What yoga's server context holds besides the Node request: the request's scope and record,
 * made by the first plugin (useRequestLifecycle) when the request arrives. yoga passes the
 * server context to every hook and spreads it into the GraphQL context's factory.
 */
export interface ServerContext extends Partial<StartedRequest> {
  req?: IncomingMessage;
}

/** What a call scope is made of besides its limits, observer and byte budget, as read from a request or an upgrade. */
type ScopeParts = Omit<ScopeInit, keyof ScopeLimits | 'observer' | 'bytes'>;

/** A request's record, and its scope with the observer made over that record, limits starting now and a byte budget of its own. */
function startRequest(parts: ScopeParts, policy: ScopeSettings): StartedRequest {
  const record = new RequestRecord();
  const limits = CallScope.limits(policy.deadlineMs, policy.budget, policy.callers?.allowance(parts.auth, parts.clientAddress));
  return { scope: new CallScope({ ...parts, ...limits, observer: policy.observeCalls?.(record), bytes: policy.bytes() }), record };
}

/** Starts a request's scope and record on arrival (id from X-Request-Id when it is plain, the bearer read once); its deadline starts now. */
function startHttpRequest(request: Request, policy: ScopeSettings, socketAddress: string | undefined): StartedRequest {
  const id = request.headers.get('x-request-id');
  const language = request.headers.get('accept-language');
  return startRequest(
    {
      id: id && SAFE_ID.test(id) ? id : randomUUID(),
      auth: readAuth(request.headers.get('authorization')),
      acceptLanguage: language && SAFE_LANGUAGE.test(language) ? language : null,
      clientAddress: clientAddress(request.headers.get('x-forwarded-for'), socketAddress, policy.trustProxy),
      signal: request.signal,
    },
    policy,
  );
}

/** Whether the request in this server context has its scope and record yet. */
const started = (serverContext: ServerContext): serverContext is ServerContext & StartedRequest =>
  serverContext.scope !== undefined && serverContext.record !== undefined;

/**
 * The scope and record of the request in this server context, made on the spot if none was
 * (yoga's own plugins may answer before ours see the request: a CORS preflight).
 */
export function requestOf(serverContext: ServerContext, request: Request, policy: ScopeSettings): StartedRequest {
  return started(serverContext)
    ? serverContext
    : Object.assign(serverContext, startHttpRequest(request, policy, serverContext.req?.socket?.remoteAddress));
}

/** What a WebSocket operation's scope is made from: the upgrade request, the connection's bearer, the operation's signal. */
export interface SocketOperation {
  upgrade: IncomingMessage;
  /** connection_init's `authorization` (or `Authorization`), `Bearer ` optional. */
  authorization: string | null;
  signal: AbortSignal;
}

/**
 * Starts the scope and record of one operation over a WebSocket, as a request's would start:
 * a new id (a connection carries many operations), the caller read from the connection's
 * bearer, the client address from the upgrade (TRUSTED_PROXIES alike), and its deadline from now.
 */
export function startSocketOperation({ upgrade, authorization, signal }: SocketOperation, policy: ScopeSettings): StartedRequest {
  const language = upgrade.headers['accept-language'];
  const bearer = authorization && !/^\s*bearer\s/i.test(authorization) ? `Bearer ${authorization}` : authorization;
  return startRequest(
    {
      id: randomUUID(),
      auth: readAuth(bearer),
      acceptLanguage: language && SAFE_LANGUAGE.test(language) ? language : null,
      clientAddress: clientAddress(forwardedFor(upgrade.headers), upgrade.socket.remoteAddress, policy.trustProxy),
      signal,
    },
    policy,
  );
}
