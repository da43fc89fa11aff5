import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { GatewayError, RateLimitedError } from '../errors.js';
import type { LoginThrottle } from '../graph/context.js';
import type { Config } from './config.js';

type Limits = Config['loginThrottle'];

type LimiterOptions = { keyPrefix: string; points: number; duration: number };

/**
 * The counters behind one key space: this process's, or shared in Redis by every replica
 * (the same limits as one replica), with this process's own as insurance while Redis is
 * unreachable.
 */
function limiter(options: LimiterOptions, shared: { redis: Redis; keyPrefix: string } | undefined) {
  if (!shared) return new RateLimiterMemory(options);
  return new RateLimiterRedis({
    ...options,
    keyPrefix: `${shared.keyPrefix}${options.keyPrefix}`,
    storeClient: shared.redis,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory(options),
  });
}

// Usernames are kept as hashes: the counters need no one's email address.
const usernameKey = (username: string) => createHash('sha256').update(username.trim().toLowerCase()).digest('base64url');

/**
 * Failed logins, counted per username and per client address (rate-limiter-flexible): past
 * either limit in a window, further attempts are refused with RATE_LIMITED and
 * retryAfterSeconds, without an upstream call. An attempt takes a point from both counters
 * before it goes upstream (so parallel attempts cannot slip past) and gives it back unless
 * the upstream refused the credentials.
 */
export function createLoginThrottle(limits: Limits, shared?: { redis: Redis; keyPrefix: string }): LoginThrottle {
  const window = { duration: limits.windowSeconds };
  const byUsername = limiter({ keyPrefix: 'login-failures:username', points: limits.perUsername, ...window }, shared);
  const byAddress = limiter({ keyPrefix: 'login-failures:address', points: limits.perAddress, ...window }, shared);

  return {
    async attempt(username, address, login) {
      const counters = [
        { limiter: byUsername, key: usernameKey(username) },
        ...(address ? [{ limiter: byAddress, key: address }] : []),
      ];
      const taken = await Promise.allSettled(counters.map(({ limiter, key }) => limiter.consume(key)));
      const giveBack = () => Promise.all(counters.filter((_, i) => taken[i]!.status === 'fulfilled').map(({ limiter, key }) => limiter.reward(key)));
      const refusals = taken.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
      if (refusals.length > 0) {
        await giveBack();
        const store = refusals.find((reason) => !(reason instanceof RateLimiterRes));
        if (store) throw store;
        const waitMs = Math.max(...refusals.map((reason) => (reason as RateLimiterRes).msBeforeNext));
        const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
        throw new RateLimitedError(`Too many failed logins: try again in ${retryAfterSeconds} s.`, { retryAfterSeconds });
      }
      try {
        const result = await login();
        await giveBack();
        return result;
      } catch (error) {
        const refusedCredentials = error instanceof GatewayError && error.extensions.code === 'UNAUTHENTICATED';
        if (!refusedCredentials) await giveBack();
        throw error;
      }
    },
  };
}
