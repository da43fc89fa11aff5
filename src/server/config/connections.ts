// Client connections: where the gateway listens, the proxies in front, timeouts, caps, readers
// that stop reading, and how a stop goes.
import { isIP } from 'node:net';
import { z } from 'zod';
import { integer, MIB } from './kinds.js';

/**
 * Trusted proxies: comma-separated IPs, CIDR ranges and proxy-addr's names. A bare hop count
 * (the old form) is refused: it trusts whatever a client puts first in X-Forwarded-For.
 */
const trustedProxies = z
  .string()
  .transform((value): readonly string[] =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  )
  .refine(
    (list) => !list.some((entry) => /^\d+$/.test(entry)),
    "TRUSTED_PROXIES takes the proxies' addresses, not a hop count: e.g. 10.0.0.0/8 or loopback",
  )
  .refine(
    (list) => list.every((entry) => /^\d+$/.test(entry) || PROXY_NAMES.includes(entry) || isAddressRange(entry)),
    "TRUSTED_PROXIES must list the proxies' addresses: IPs or CIDR ranges (10.0.0.0/8, 127.0.0.1), or loopback, linklocal, uniquelocal",
  );

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isAddressRange(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  if (rest.length > 0 || !address) return false;
  const version = isIP(address);
  if (version === 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}

export const connectionVariables = z.object({
  PORT: integer('PORT', 0, 65535).default(4000).describe('The TCP port the gateway listens on; `0` picks a free one.'),
  HOST: z
    .string()
    .trim()
    .min(1, 'HOST must not be empty')
    .default('127.0.0.1')
    .describe('The address the gateway listens on. A container sets `0.0.0.0`: every address of the machine.'),
  TRUSTED_PROXIES: trustedProxies
    .default([])
    .describe(
      "The proxies in front of the gateway, by address: comma-separated IPs and CIDR ranges (`10.0.0.0/8`, `127.0.0.1`), or `loopback`, `linklocal`, `uniquelocal`. Only a connection from one of them has its `X-Forwarded-For` believed: the client address (for throttling and the per-address limits, and forwarded upstream) is then the entry the nearest trusted proxy added, else the socket's. A forwarded entry that is not an IP is ignored. A hop count is refused.",
    ),
  SHUTDOWN_GRACE_MS: integer('SHUTDOWN_GRACE_MS', 0, 600_000)
    .default(10_000)
    .describe('On SIGTERM or SIGINT, how long requests in flight may take before their connections are closed.'),
  HEADERS_TIMEOUT_MS: integer('HEADERS_TIMEOUT_MS', 1000, 600_000)
    .default(10_000)
    .describe(
      'A client must send its request headers within this from connecting, else 408 and the connection is closed; a WebSocket its `connection_init` from the upgrade, else it is closed with 4408. At most `REQUEST_TIMEOUT_MS`.',
    ),
  REQUEST_TIMEOUT_MS: integer('REQUEST_TIMEOUT_MS', 1000, 600_000)
    .default(30_000)
    .describe('A client must send its whole request (headers and body) within this, else 408 and the connection is closed.'),
  KEEP_ALIVE_TIMEOUT_MS: integer('KEEP_ALIVE_TIMEOUT_MS', 1000, 600_000)
    .default(5000)
    .describe('An idle keep-alive connection is closed after this.'),
  MAX_CONNECTIONS: integer('MAX_CONNECTIONS', 1, 1_000_000)
    .default(4096)
    .describe(
      'Open client connections at most; more are closed on arrival (logged at warn). The process needs about this many file handles, plus 1,280 for upstream sockets, and warns at start-up when its limit is lower.',
    ),
  MAX_CONNECTIONS_PER_ADDRESS: integer('MAX_CONNECTIONS_PER_ADDRESS', 1, 1_000_000)
    .default(256)
    .describe(
      "Open connections from one client address at most; more are closed on arrival. Behind a trusted proxy it counts that client's requests in flight instead, and answers 429 `RATE_LIMITED` past it.",
    ),
  SLOW_READER_BYTES: integer('SLOW_READER_BYTES', 1_000, 1024 * MIB)
    .default(MIB)
    .describe(
      'A connection whose unsent answer stays above this for `SLOW_READER_TIMEOUT_MS` is closed: plain, multipart, SSE and WebSocket answers alike.',
    ),
  SLOW_READER_TIMEOUT_MS: integer('SLOW_READER_TIMEOUT_MS', 1000, 3_600_000)
    .default(10_000)
    .describe(
      "How long a connection's unsent answer may stay above `SLOW_READER_BYTES`, or not shrink at all (its reader stopped), before the connection is closed.",
    ),
  SLOW_READER_BYTES_PER_ADDRESS: integer('SLOW_READER_BYTES_PER_ADDRESS', 1_000, 4096 * MIB)
    .default(8 * MIB)
    .describe(
      "The unsent data of all of one client address's connections together (behind a trusted proxy, its forwarded client's). Past it, the connections holding the most are closed at once until the rest fit.",
    ),
  WEBSOCKET_IDLE_TIMEOUT_MS: integer('WEBSOCKET_IDLE_TIMEOUT_MS', 1000, 3_600_000)
    .default(30_000)
    .describe('A WebSocket running no operation is closed (1000) after this, before `connection_init` and after it; pings do not count.'),
});

/** The client timeouts' problems together: the headers are part of the request. */
export function clientTimeoutProblems(values: z.output<typeof connectionVariables>): string[] {
  return values.HEADERS_TIMEOUT_MS > values.REQUEST_TIMEOUT_MS
    ? ['HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS (the headers are part of the request)']
    : [];
}
