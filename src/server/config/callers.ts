// What one caller may hold at once, and how failed logins and refreshes are slowed down.
import { z } from 'zod';
import type { CallerLimits } from '../callers.js';
import { integer } from './kinds.js';

/**
 * Settings no operator tunes, kept as constants: the window of the login and refresh counters
 * (also the longest wait), and the refusals of one refresh token in a window.
 */
const FAILURE_WINDOW_S = 900;
const REFRESH_FAILURES_PER_TOKEN = 5;

export const callerVariables = z.object({
  // Sized for a browser tab or two: a page's queries at once, each at its full concurrency.
  CALLER_OPERATIONS_IN_FLIGHT: integer('CALLER_OPERATIONS_IN_FLIGHT', 1, 100_000)
    .default(32)
    .describe(
      'Queries and mutations one caller may have in flight at once, over HTTP, SSE, multipart and WebSocket together (a streamed answer until its last part). Past it: 429 `RATE_LIMITED` before anything runs. A caller is the customer the upstream verified its token as; a token not verified yet, itself (on every address), and its client address too, until verified; with no token, its client address (an IPv6 /64 counts as one). Open live streams are held by the `LIVE_STREAMS_*` limits instead.',
    ),
  CALLER_UPSTREAM_CALLS_IN_FLIGHT: integer('CALLER_UPSTREAM_CALLS_IN_FLIGHT', 1, 100_000)
    .default(64)
    .describe(
      'Upstream calls one caller may have in flight at once, all its requests and live streams together; the others wait their turn within their deadline.',
    ),
  LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: integer('LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS', 1, 1000)
    .default(5)
    .describe(
      'Failed logins free per username and client address in a window. After them each attempt must wait (`LOGIN_FAILURE_DELAY_S`): `RATE_LIMITED` with `retryAfterSeconds`, and no upstream call. A successful login clears the count.',
    ),
  LOGIN_FAILURE_DELAY_S: integer('LOGIN_FAILURE_DELAY_S', 1, 86_400)
    .default(30)
    .describe(
      'The first wait once a username and address have used their free failures; it doubles after each further failure, up to the window.',
    ),
  LOGIN_FAILURES_PER_USERNAME: integer('LOGIN_FAILURES_PER_USERNAME', 1, 100_000)
    .default(100)
    .describe(
      'Failed logins per username from all addresses in a window: a ceiling only many addresses together reach. Past it everyone, the owner too, waits for the window to end, so a low value (5, say) lets anyone lock anyone out.',
    ),
  LOGIN_FAILURES_PER_ADDRESS: integer('LOGIN_FAILURES_PER_ADDRESS', 1, 100_000)
    .default(20)
    .describe('Failed logins per client address across usernames in a window; past it, `RATE_LIMITED` for the rest of the window.'),
  REFRESH_FAILURES_PER_ADDRESS: integer('REFRESH_FAILURES_PER_ADDRESS', 1, 100_000)
    .default(20)
    .describe(
      'Refresh tokens the upstream refused, per client address in a window. More are `RATE_LIMITED` with `retryAfterSeconds`, with no upstream call; successful refreshes cost nothing.',
    ),
});

type CallerValues = z.output<typeof callerVariables>;

export function callerLimits(values: CallerValues): CallerLimits {
  return {
    operations: values.CALLER_OPERATIONS_IN_FLIGHT,
    upstreamCalls: values.CALLER_UPSTREAM_CALLS_IN_FLIGHT,
  };
}

export function throttles(values: CallerValues) {
  return {
    /**
     * Failed logins (attempts the upstream refused), in each window: per username and client
     * address, `perUsernameAndAddress` free, then a delay before each further attempt
     * (`firstDelaySeconds`, doubling, at most the window); per client address across usernames
     * (`perAddress`) and per username from all addresses (`perUsername`, a ceiling well above
     * what one address can reach), refused for the rest of the window past them.
     */
    loginThrottle: {
      perUsernameAndAddress: values.LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS,
      firstDelaySeconds: values.LOGIN_FAILURE_DELAY_S,
      perUsername: values.LOGIN_FAILURES_PER_USERNAME,
      perAddress: values.LOGIN_FAILURES_PER_ADDRESS,
      windowSeconds: FAILURE_WINDOW_S,
    },
    /** Failed token refreshes (tokens the upstream refused) allowed per client address and per refresh token in each window. */
    refreshThrottle: {
      perAddress: values.REFRESH_FAILURES_PER_ADDRESS,
      perToken: REFRESH_FAILURES_PER_TOKEN,
      windowSeconds: FAILURE_WINDOW_S,
    },
  };
}
