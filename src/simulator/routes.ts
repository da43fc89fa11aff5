// The simulator's routing: the five upstream hosts as path prefixes of one port, and each
// contract operation's method and path (from the contract table) under its host's prefix.
import { CONTRACT, HOSTS, OPERATION_NAMES, type HostName, type OperationName } from '../upstream/contract.js';

/** The path prefix under which each upstream host is served (its URL's path). */
export const UPSTREAM_PATH_PREFIXES: Readonly<Record<HostName, string>> = {
  AUTH_URL: '/auth-service',
  APPOINTMENT_URL: '/appointment-service',
  ORDER_URL: '/order-service',
  PRICE_CALCULATOR_URL: '/price-calculator',
  TRADE_IN_URL: '/trade-in-service',
};

interface Route {
  operation: OperationName;
  host: HostName;
  method: string;
  /** The contract path as a pattern whose named groups are the path parameters. */
  pattern: RegExp;
}

const ROUTES: readonly Route[] = OPERATION_NAMES.map((operation) => {
  const { host, method, path } = CONTRACT[operation];
  const literal = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return { operation, host, method, pattern: new RegExp(`^${literal.replace(/\{(\w+)\}/g, '(?<$1>[^/]*)')}$`) };
});

export type Resolution =
  | { kind: 'route'; operation: OperationName; hostPath: string; pathParams: Record<string, string> }
  | { kind: 'not-found'; hostPath: string }
  | { kind: 'method-not-allowed'; hostPath: string; allow: string }
  | { kind: 'bad-path'; hostPath: string };

/** Which operation a request is, by its host prefix, path and method. */
export function resolveRoute(method: string, rawPath: string): Resolution {
  const host = HOSTS.find((name) => {
    const prefix = UPSTREAM_PATH_PREFIXES[name];
    return rawPath === prefix || rawPath.startsWith(`${prefix}/`);
  });
  if (!host) return { kind: 'not-found', hostPath: rawPath };
  const hostPath = rawPath.slice(UPSTREAM_PATH_PREFIXES[host].length) || '/';
  const allowed: string[] = [];
  for (const route of ROUTES) {
    const match = route.host === host ? route.pattern.exec(hostPath) : null;
    if (!match) continue;
    if (route.method !== method) {
      allowed.push(route.method);
      continue;
    }
    try {
      const pathParams = Object.fromEntries(
        Object.entries(match.groups ?? {}).map(([name, value]) => [name, decodeURIComponent(value ?? '')]),
      );
      return { kind: 'route', operation: route.operation, hostPath, pathParams };
    } catch {
      return { kind: 'bad-path', hostPath };
    }
  }
  return allowed.length > 0 ? { kind: 'method-not-allowed', hostPath, allow: allowed.join(', ') } : { kind: 'not-found', hostPath };
}
