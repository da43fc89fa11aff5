// Where the gateway may send a request a customer gave the address of (a webhook URL, a push
// endpoint): a server of the internet, never one of ours. A name is checked where it is used,
// at connect time, on every address it resolves to: a name that resolves to a private address,
// or one whose answer changes between a check and the connection (DNS rebinding), reaches
// nothing. No redirect is followed, the whole attempt runs under one timer, and the response
// body is read up to a small cap, then dropped: nothing of it is kept or logged.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import { DeliveryError } from './contracts.js';

/** How many bytes of a response body are read before the rest is dropped. */
export const RESPONSE_BODY_BYTES = 4 * 1024;

/** What a name resolves to: every address of it (a test answers for a name of its own). */
export type Resolve = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

export interface AddressPolicy {
  /** Allows http and private, loopback and link-local addresses: the demo and tests, never production. */
  allowPrivateAddresses: boolean;
  /** dns.lookup (every address) unless given. */
  resolve?: Resolve;
}

/** A URL or an address the gateway will not send to; its message says why, without the address's secrets. */
export class AddressRefused extends Error {
  readonly code = 'ERR_ADDRESS_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'AddressRefused';
  }
}

const resolveAll: Resolve = (hostname) => dnsLookup(hostname, { all: true });

/**
 * An IP address of the public internet: ipaddr.js's `unicast` range, IPv4-mapped IPv6 read as
 * the IPv4 it carries. Everything else is refused: loopback, private (10/8, 172.16/12,
 * 192.168/16), link-local (169.254/16 with the cloud metadata address, fe80::/10), unique-local
 * (fc00::/7), carrier-grade NAT, multicast, unspecified, reserved, and the IPv6 ranges that
 * embed an IPv4 address (NAT64, 6to4, Teredo) whose inside cannot be vouched for.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return false;
  return ipaddr.process(bare).range() === 'unicast';
}

function refuseAddress(address: string, policy: AddressPolicy): void {
  if (!policy.allowPrivateAddresses && !isPublicAddress(address))
    throw new AddressRefused('the address is not a public internet address (loopback, private, link-local or reserved)');
}

/**
 * The URL a target may have: https (http too while private addresses are allowed), no user or
 * password in it, and a host that is a name or a public address. Throws AddressRefused; the
 * names are checked when connecting (checkResolved tells a customer early).
 */
export function checkTargetUrl(text: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AddressRefused('the URL is not a valid absolute URL');
  }
  const schemes = policy.allowPrivateAddresses ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw new AddressRefused(`the URL must start with ${schemes.map((s) => `${s}//`).join(' or ')}`);
  if (url.username || url.password) throw new AddressRefused('the URL must not carry a user name or password');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) refuseAddress(host, policy);
  return url;
}

/**
 * checkTargetUrl, and the name resolved now with every address checked: to refuse a target when
 * it is added. The connection checks again (the answer may have changed since).
 */
export async function checkResolved(text: string, policy: AddressPolicy): Promise<URL> {
  const url = checkTargetUrl(text, policy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!isIP(host) && !policy.allowPrivateAddresses) {
    let addresses: ReadonlyArray<{ address: string }>;
    try {
      addresses = await (policy.resolve ?? resolveAll)(host);
    } catch {
      throw new AddressRefused('the host name does not resolve');
    }
    if (addresses.length === 0) throw new AddressRefused('the host name does not resolve');
    for (const { address } of addresses) refuseAddress(address, policy);
  }
  return url;
}

/**
 * The lookup a connection makes: every address of the name checked, the connection refused when
 * any is not public (a name with one private address among public ones is not trusted either).
 */
function guardedLookup(policy: AddressPolicy): LookupFunction {
  const resolve = policy.resolve ?? resolveAll;
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const wanted = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const addresses = found.filter(({ family }) => !wanted || wanted === family);
        if (addresses.length === 0) return callback(Object.assign(new Error(`no address for the host`), { code: 'ENOTFOUND' }), '', 0);
        try {
          for (const { address } of addresses) refuseAddress(address, policy);
        } catch (error) {
          return callback(error as AddressRefused, '', 0);
        }
        if (options.all)
          return callback(
            null,
            addresses.map(({ address, family }) => ({ address, family })),
          );
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/**
 * The dispatcher for requests to customers' addresses: an undici Agent whose every connection
 * is checked (an IP literal host as it is, a name through guardedLookup). Sockets are kept
 * alive a few seconds between messages; `close()` it with its owner.
 */
export function guardedDispatcher(policy: AddressPolicy): Agent {
  // HTTP/1.1 only, as the gateway's other undici clients: undici's HTTP/2 is still experimental.
  const connect = buildConnector({ lookup: guardedLookup(policy), allowH2: false });
  return new Agent({
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host)) {
        try {
          refuseAddress(host, policy);
        } catch (error) {
          return callback(error as AddressRefused, null);
        }
      }
      connect(options, callback);
    },
    // One timer bounds the attempt (guardedPost); undici's own per-phase timers would be a second clock.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
}

/** What the HTTP channels send through: the guarded dispatcher, its policy, and the timeout of one attempt. */
export interface GuardedRoute {
  dispatcher: Dispatcher;
  policy: AddressPolicy;
  timeoutMs: number;
}

/**
 * One POST through a guarded dispatcher, as a delivery: the URL checked first (checkTargetUrl),
 * no redirect followed, connecting, the response and reading its body all within `timeoutMs`,
 * the body read to RESPONSE_BODY_BYTES and the connection dropped past it. Resolves on a 2xx;
 * throws a DeliveryError otherwise: for good on a refused address, a 3xx or a 4xx but 408 and
 * 429; worth a retry on those two, a 5xx, a timeout or a network failure. `what` names the
 * target kind in the error (never its URL: a webhook's may carry a token).
 */
export async function postGuarded(
  { dispatcher, policy, timeoutMs }: GuardedRoute,
  url: string,
  { headers, body, what }: { headers: Record<string, string>; body: string | Buffer; what: string },
): Promise<void> {
  try {
    checkTargetUrl(url, policy);
  } catch (error) {
    throw new DeliveryError(`${what}: ${(error as Error).message}`, true);
  }
  const signal = AbortSignal.timeout(timeoutMs);
  let status: number;
  try {
    const response = await request(url, { method: 'POST', dispatcher, headers, body, signal });
    status = response.statusCode;
    let read = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      read += chunk.length;
      if (read >= RESPONSE_BODY_BYTES) {
        response.body.destroy();
        break;
      }
    }
  } catch (error) {
    if (signal.aborted) throw new DeliveryError(`${what}: no answer within ${timeoutMs} ms`, false);
    const refused = refusal(error);
    if (refused) throw new DeliveryError(`${what}: ${refused.message}`, true);
    const code = (error as { code?: unknown } | null)?.code;
    throw new DeliveryError(`${what}: the connection failed${typeof code === 'string' ? ` (${code})` : ''}`, false);
  }
  if (status >= 200 && status < 300) return;
  const retry = status === 408 || status === 429 || status >= 500;
  throw new DeliveryError(`${what} answered HTTP ${status}`, !retry);
}

/** The AddressRefused behind an error, however undici or net wrapped it (an AggregateError for several addresses). */
function refusal(error: unknown, depth = 0): AddressRefused | undefined {
  if (error instanceof AddressRefused) return error;
  if (depth > 3 || typeof error !== 'object' || error === null) return undefined;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (cause !== undefined) {
    const found = refusal(cause, depth + 1);
    if (found) return found;
  }
  if (Array.isArray(errors))
    for (const inner of errors) {
      const found = refusal(inner, depth + 1);
      if (found) return found;
    }
  return undefined;
}
