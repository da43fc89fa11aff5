// The upstream's settings: what answers for the REST service (its URLs, or the embedded
// simulator) and each request's calls to it (timeouts, retries, the client, the budget).
import { z } from 'zod';
import type { BudgetLimits } from '../../upstream/budget.js';
import { HOSTS, type HostName, type UpstreamUrls } from '../../upstream/contract.js';
import { wholeOrderCalls } from '../../graph/order-fields.js';
import { defaultOrdersPage } from '../../graph/sdl.js';
import { flag, httpUrl, integer } from './kinds.js';

/**
 * The retries one request may make in all (whatever UPSTREAM_RETRIES allows per call): no
 * operator tunes it, so it is a constant.
 */
const RETRIES_PER_REQUEST = 4;

/**
 * The upstream calls a request may make by default: a whole order of the default page, rounded
 * up to the next ten so that a retry or two fit. It follows the operations: a per-order call
 * added to the table raises it.
 */
export const DEFAULT_UPSTREAM_CALLS = Math.ceil(wholeOrderCalls(defaultOrdersPage()) / 10) * 10;

/** The upstream URLs share one description: docs/configuration.md shows them as one row. */
const UPSTREAM_URL =
  "The upstream's base URLs, one per host of the contract (`upstream/openapi.yaml` names each path's host in `x-base`): http or https, without query or fragment; a base may carry a path prefix, and the contract's path is appended to it. None set: the embedded simulator serves them (not in production, see `SIMULATOR`). Some but not all: the gateway refuses to start and names the missing ones.";

export const upstreamVariables = z.object({
  UPSTREAM_TIMEOUT_MS: integer('UPSTREAM_TIMEOUT_MS', 1, 600_000).default(5000).describe('How long each upstream call may take.'),
  UPSTREAM_RETRIES: integer('UPSTREAM_RETRIES', 0, 5)
    .default(1)
    .describe(
      'Retries of an idempotent GET after a connection error or a 502, 503 or 504. Never for a POST, never after a timeout, and only while a whole further attempt fits in the request deadline.',
    ),
  UPSTREAM_CLIENT: z
    .enum(['undici', 'got'], { error: 'UPSTREAM_CLIENT must be undici or got' })
    .default('undici')
    .describe(
      'The HTTP client of the upstream calls: `undici` (a connection pool per host, the cheaper per call) or `got`. Both behave alike in every other respect (timeouts, the size cap, retries, cancellation); docs/ARCHITECTURE.md says why undici is the default.',
    ),
  REQUEST_DEADLINE_MS: integer('REQUEST_DEADLINE_MS', 1, 600_000)
    .default(10_000)
    .describe("The whole request's time budget: no upstream call outlives it, retries included."),
  UPSTREAM_CALLS_PER_REQUEST: integer('UPSTREAM_CALLS_PER_REQUEST', 1, 10_000)
    .default(DEFAULT_UPSTREAM_CALLS)
    .describe(
      'Upstream calls one request may make, retries included. The default is what a whole order of the default page of orders takes (each customer call once, each per-order call once per order), rounded up to the next ten. The fields past it are null with `UPSTREAM_BUDGET_EXCEEDED`.',
    ),
  UPSTREAM_CONCURRENCY_PER_REQUEST: integer('UPSTREAM_CONCURRENCY_PER_REQUEST', 1, 256)
    .default(16)
    .describe('Upstream calls of one request in flight at once; the others wait their turn within the deadline.'),
  SIMULATOR: flag('SIMULATOR').optional().meta({
    description:
      'The embedded simulator of the REST service, with its demo logins, in place of the upstream. In production it must be asked for; with the upstream URLs set it cannot be.',
    unset: '`on` without upstream URLs, except in production',
  }),
  ...(Object.fromEntries(HOSTS.map((name) => [name, httpUrl(name).optional().describe(UPSTREAM_URL)])) as Record<
    HostName,
    z.ZodOptional<ReturnType<typeof httpUrl>>
  >),
});

type UpstreamValues = z.output<typeof upstreamVariables>;

export function upstreamBudget(values: UpstreamValues): BudgetLimits {
  return {
    calls: values.UPSTREAM_CALLS_PER_REQUEST,
    concurrency: values.UPSTREAM_CONCURRENCY_PER_REQUEST,
    retries: RETRIES_PER_REQUEST,
  };
}

/** All five upstream URLs (loadConfig refuses a part of them), or null: none set. */
export function upstreamUrls(values: UpstreamValues): UpstreamUrls | null {
  const urls = HOSTS.map((name) => [name, values[name]] as const);
  return urls.every(([, url]) => url !== undefined) ? (Object.fromEntries(urls) as UpstreamUrls) : null;
}

const URL_NAMES = HOSTS.join(', ');

/** The upstream is all five URLs, or the simulator: never a mix, never the simulator in production unless asked for. */
export function upstreamProblems(setUrls: readonly HostName[], simulator: boolean | undefined, production: boolean): string[] {
  if (setUrls.length > 0 && setUrls.length < HOSTS.length) {
    const missing = HOSTS.filter((name) => !setUrls.includes(name));
    return [
      `Upstream configured only in part: ${missing.join(', ')} missing. Set all five upstream URLs, or none to use the embedded simulator`,
    ];
  }
  if (setUrls.length > 0 && simulator === true)
    return [`SIMULATOR=on serves demo data instead of the upstream: unset ${URL_NAMES}, or SIMULATOR`];
  if (setUrls.length > 0) return [];
  if (simulator === false) return [`SIMULATOR=off needs the upstream: set ${URL_NAMES}`];
  if (production && simulator === undefined) {
    return [`NODE_ENV=production needs the upstream: set ${URL_NAMES} (or SIMULATOR=on to serve the embedded simulator's demo data)`];
  }
  return [];
}
