// Failed-credential counters (rate-limiter-flexible): this process's, or shared in Redis by
// every replica, with this process's own taking over whenever Redis does not answer in time.
// The rules and why: docs/limits.md, "Upstream budgets".
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { GatewayError, RateLimitedError } from '../errors.js';
import type { LoginThrottle } from '../graph/context.js';
import type { RedisConnection } from '../redis/connection.js';
import type { Config } from './config.js';

// Loaded with the first login or refresh: a gateway that only answers queries never holds its
// modules (1.2 MB of heap). require keeps the counters synchronous to make.
let limiterModule: typeof import('rate-limiter-flexible') | undefined;
const limiters = () =>
  (limiterModule ??= createRequire(import.meta.url)('rate-limiter-flexible') as typeof import('rate-limiter-flexible'));
/** Whether an error is a counter's refusal (nothing is refused before the module is loaded). */
const isRefusal = (error: unknown): error is RateLimiterRes => limiterModule !== undefined && error instanceof limiterModule.RateLimiterRes;

type Limits = { login: Config['loginThrottle']; refresh: Config['refreshThrottle'] };
type Shared = { redis: RedisConnection; keyPrefix: string };
type LimiterOptions = { keyPrefix: string; points: number; duration: number };

// What a counter's increment answers, instead of a count, when its key holds what no counter writes.
const WRONG_COUNTER = 'WRONG_COUNTER';

/**
 * rate-limiter-flexible's increment (its incrTtlLuaScript: ARGV[1] points, ARGV[2] seconds;
 * {count, ms left}), with what the key holds checked first. Anyone who can write to Redis can
 * write a counter, and its numbers decide a lock: at -1000000 every guess went through; a count
 * past 2^53 read back as another; one expiring in ten years locked the owner out for ten years.
 * A key that is not a count as the scripts write one (digits, at most 15), or that lives longer
 * than `longestMs` (the longest window or delay), is deleted and the script answers
 * WRONG_COUNTER with why; the counter then takes its point again, from zero. A point given back
 * to a key that has gone (expired, cleared) is not written: no count goes below zero.
 */
const checkedIncrement = (longestMs: number) => `
local key, points, seconds = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
local kind = redis.call('TYPE', key)['ok']
local wrong = kind ~= 'none' and kind ~= 'string' and 'a key of type ' .. kind
if kind == 'string' then
  local count, ttl = redis.call('GET', key), redis.call('PTTL', key)
  if #count > 15 or not string.find(count, '^%d+$') then wrong = 'a count that is not a whole number from 0 to 10^15'
  elseif ttl > ${longestMs} then wrong = 'a count that expires later than any window' end
end
if wrong then
  redis.call('DEL', key)
  return redis.error_reply('${WRONG_COUNTER} ' .. wrong)
end
if kind == 'none' and points < 0 then return {0, 0} end
redis.call('SET', key, 0, 'EX', seconds, 'NX')
local consumed = redis.call('INCRBY', key, points)
if consumed < 0 then
  redis.call('SET', key, 0, 'KEEPTTL')
  consumed = 0
end
local ttl = redis.call('PTTL', key)
if ttl == -1 then
  redis.call('EXPIRE', key, seconds)
  ttl = 1000 * seconds
end
return {consumed, ttl}`;

/** Why the increment refused what a counter's key held, when that is what failed; else null. */
const wrongCounter = (error: unknown) =>
  error instanceof Error && error.message.startsWith(`${WRONG_COUNTER} `) ? error.message.slice(WRONG_COUNTER.length + 1) : null;

/** A point taken: how many the key holds now (this one included); given back where it was taken. */
type Taken = { consumed: number; reward(): Promise<unknown> };

/** One key space of counters. `take` rejects with a RateLimiterRes past the limit. */
interface Counters {
  take(key: string): Promise<Taken>;
  /** Refuses the key's next takes for `seconds` (rate-limiter-flexible's block). */
  block(key: string, seconds: number): Promise<unknown>;
  clear(key: string): Promise<unknown>;
}

/**
 * The counters behind one key space. Shared, they live in Redis (the same limits for the
 * fleet as for one replica); while Redis is unavailable or degraded, or when a command fails
 * or times out, this process's own count instead (the limits hold per process), at once:
 * no attempt waits on a Redis that is known not to answer.
 */
function counters(options: LimiterOptions, shared: (Shared & { longestMs: number }) | undefined): Counters {
  let stores: { local: RateLimiterMemory; remote: RateLimiterRedis | undefined } | undefined;
  const made = () =>
    (stores ??= {
      local: new (limiters().RateLimiterMemory)(options),
      remote:
        shared &&
        new (limiters().RateLimiterRedis)({
          ...options,
          keyPrefix: `${shared.keyPrefix}${options.keyPrefix}`,
          storeClient: shared.redis.commands,
          rejectIfRedisNotReady: true,
          // One script for every counter of the client (the library defines it once on it, by name).
          customIncrTtlLuaScript: checkedIncrement(shared.longestMs),
        }),
    });
  const failed = (error: unknown) => {
    const wrong = wrongCounter(error);
    if (wrong === null) shared?.redis.failed('login counter', error);
    else shared?.redis.ignore('login counter', `${wrong}: deleted, counted again from 0`);
  };
  const onStore = async <T>(run: (limiter: RateLimiterMemory | RateLimiterRedis) => Promise<T>): Promise<T> => {
    const { local, remote } = made();
    // A key found wrong is deleted by the attempt that finds it: the second counts afresh.
    for (let attempt = 0; remote && attempt < 2 && shared!.redis.available(); attempt += 1) {
      try {
        return await run(remote);
      } catch (error) {
        // A refusal is the counter's answer; anything else is Redis failing.
        if (isRefusal(error)) throw error;
        failed(error);
        if (wrongCounter(error) === null) break;
      }
    }
    return run(local);
  };
  return {
    take: (key) =>
      onStore(async (limiter) => {
        const { consumedPoints } = await limiter.consume(key);
        // A point taken in Redis that no longer answers stays taken: one failure too many at worst.
        const reward = () =>
          limiter === made().remote && !shared!.redis.available() ? Promise.resolve() : limiter.reward(key).catch(failed);
        return { consumed: consumedPoints, reward };
      }),
    block: (key, seconds) => onStore((limiter) => limiter.block(key, seconds)),
    clear: (key) => onStore((limiter) => limiter.delete(key)),
  };
}

/**
 * The key a username is counted under: NFKC (fullwidth and other compatibility forms become
 * the plain ones), without default-ignorable, format and control characters (zero-width
 * space and joiners, U+FEFF, soft hyphen), case-folded (upper then lower: ß and SS, ς and σ
 * meet), without any whitespace (trimming is not enough: "a b" and "ab" would be two
 * counters) and trailing dots. Variants an upstream may take for the same account share one
 * counter; two accounts meeting here only count together, which is the safe side. The
 * upstream still gets the username as typed.
 */
export function normalizeUsername(username: string): string {
  return username
    .normalize('NFKC')
    .replace(/[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}]/gu, '')
    .toUpperCase()
    .toLowerCase()
    .normalize('NFKC')
    .replace(/\s+/gu, '')
    .replace(/\.+$/u, '');
}

// Usernames and tokens are kept as hashes: the counters need no one's email address or token.
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');
export const usernameKey = (username: string) => sha256(normalizeUsername(username));

/** The delay after a pair's `failures`-th failure: none within the free ones, then doubling from `firstDelaySeconds`, at most the window. */
export function delayAfter(failures: number, limits: Config['loginThrottle']): number {
  const beyond = failures - limits.perUsernameAndAddress;
  if (beyond < 0) return 0;
  return Math.min(limits.firstDelaySeconds * 2 ** Math.min(beyond, 32), limits.windowSeconds);
}

// The upstream refused the attempt as the caller's: wrong or malformed credentials, a spent
// token. Its own failures (5xx, timeouts), its rate limit (429, which would otherwise make an
// overloaded upstream lock everyone out) and the gateway's own refusals count for nothing.
const REFUSALS = new Set([400, 401, 403, 422]);
const refusedUpstream = (error: unknown) => error instanceof GatewayError && REFUSALS.has(error.details.upstreamStatus ?? 0);

// While a pair is past its free failures, one attempt at a time: the gate holds its slot
// until the attempt ends (or this long, should the process die meanwhile), so attempts sent
// in parallel cannot skip the delays.
const GATE_SECONDS = 60;

/** Points taken one after another: a Redis that stops answering costs one command timeout per attempt, not one per counter. */
async function takeInTurn(steps: Array<() => Promise<Taken | null>>, message: string): Promise<Taken[]> {
  const held: Taken[] = [];
  try {
    for (const step of steps) {
      const taken = await step();
      if (taken) held.push(taken);
    }
    return held;
  } catch (error) {
    await giveBack(held);
    if (!isRefusal(error)) throw error;
    const retryAfterSeconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
    throw new RateLimitedError(`${message}: try again in ${retryAfterSeconds} s.`, { retryAfterSeconds });
  }
}

const giveBack = (held: readonly Taken[]) => Promise.all(held.map((taken) => taken.reward()));

type LoginCounters = Record<'byAddress' | 'byPair' | 'gate' | 'byUsername', Counters>;

/** One login attempt through its counters (createLoginThrottle's `attempt`). */
async function attemptLogin<T>(
  counters: LoginCounters,
  limits: Config['loginThrottle'],
  username: string,
  address: string | null,
  login: () => Promise<T>,
): Promise<T> {
  const { byAddress, byPair, gate, byUsername } = counters;
  const user = usernameKey(username);
  const pair = `${user}:${address ?? 'unknown'}`;
  let failures = 0;
  let pairTaken: Taken | undefined;
  let gateTaken: Taken | null = null;
  // The address first: an address past its limit adds no key for any other username.
  const held = await takeInTurn(
    [
      () => (address ? byAddress.take(address) : Promise.resolve(null)),
      async () => {
        pairTaken = await byPair.take(pair);
        failures = pairTaken.consumed;
        return pairTaken;
      },
      async () => (gateTaken = failures > limits.perUsernameAndAddress ? await gate.take(pair) : null),
      () => byUsername.take(user),
    ],
    'Too many failed logins',
  );
  try {
    const result = await login();
    // The owner got in: after failures, this pair starts afresh (delays too); the ceilings get their points back.
    const ceilings = held.filter((taken) => taken !== pairTaken && taken !== gateTaken);
    await Promise.all([giveBack(ceilings), failures > 1 ? Promise.all([byPair.clear(pair), gate.clear(pair)]) : giveBack([pairTaken!])]);
    return result;
  } catch (error) {
    const delay = delayAfter(failures, limits);
    if (!refusedUpstream(error)) await giveBack(held);
    else if (delay > 0) await gate.block(pair, delay);
    throw error;
  }
}

/**
 * Failed logins, counted per username and client address (free ones, then growing delays),
 * per client address and per username (ceilings); failed token refreshes per client address
 * and per token. An attempt takes its points before it goes upstream (so parallel attempts
 * cannot slip past) and gives them back unless the upstream refused it; a login that
 * succeeds also clears its username-and-address count. Past a limit: RATE_LIMITED with
 * retryAfterSeconds, without an upstream call.
 */
export function createLoginThrottle({ login: limits, refresh: refreshLimits }: Limits, sharedState?: Shared): LoginThrottle {
  // No counter lives longer than its window, nor a gate longer than a delay (at most the login window).
  const longestMs = 1000 * Math.max(limits.windowSeconds, refreshLimits.windowSeconds, GATE_SECONDS);
  const shared = sharedState && { ...sharedState, longestMs };
  const window = { duration: limits.windowSeconds };
  const logins: LoginCounters = {
    byAddress: counters({ keyPrefix: 'login-failures:address', points: limits.perAddress, ...window }, shared),
    // The pair's own count never refuses: its gate does, while a delay runs.
    byPair: counters({ keyPrefix: 'login-failures:username-address', points: Number.MAX_SAFE_INTEGER, ...window }, shared),
    gate: counters({ keyPrefix: 'login-delay:username-address', points: 1, duration: GATE_SECONDS }, shared),
    byUsername: counters({ keyPrefix: 'login-failures:username', points: limits.perUsername, ...window }, shared),
  };
  const refreshWindow = { duration: refreshLimits.windowSeconds };
  const refreshByAddress = counters({ keyPrefix: 'refresh-failures:address', points: refreshLimits.perAddress, ...refreshWindow }, shared);
  const refreshByToken = counters({ keyPrefix: 'refresh-failures:token', points: refreshLimits.perToken, ...refreshWindow }, shared);

  return {
    attempt: (username, address, login) => attemptLogin(logins, limits, username, address, login),

    async refresh(refreshToken, address, refresh) {
      const held = await takeInTurn(
        [() => (address ? refreshByAddress.take(address) : Promise.resolve(null)), () => refreshByToken.take(sha256(refreshToken))],
        'Too many refused token refreshes',
      );
      try {
        const result = await refresh();
        await giveBack(held);
        return result;
      } catch (error) {
        if (!refusedUpstream(error)) await giveBack(held);
        throw error;
      }
    },
  };
}
