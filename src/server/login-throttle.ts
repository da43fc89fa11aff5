// Failed-login counters (rate-limiter-flexible): this process's, or shared in Redis by every
// replica, with this process's own taking over whenever Redis does not answer in time.
import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { GatewayError, RateLimitedError } from '../errors.js';
import type { LoginThrottle } from '../graph/context.js';
import type { RedisConnection } from '../redis/connection.js';
import type { Config } from './config.js';

type Limits = Config['loginThrottle'];

type LimiterOptions = { keyPrefix: string; points: number; duration: number };

/** Where an attempt's point was taken: it is given back there. */
type Taken = { reward(): Promise<unknown> };

/**
 * The counters behind one key space. Shared, they live in Redis (the same limits for the
 * fleet as for one replica); while Redis is unavailable or degraded, or when a command fails
 * or times out, this process's own count instead (the limits hold per process), at once:
 * no attempt waits on a Redis that is known not to answer.
 */
function counters(options: LimiterOptions, shared: { redis: RedisConnection; keyPrefix: string } | undefined) {
  const local = new RateLimiterMemory(options);
  const remote = shared && new RateLimiterRedis({ ...options, keyPrefix: `${shared.keyPrefix}${options.keyPrefix}`, storeClient: shared.redis.commands, rejectIfRedisNotReady: true });
  const takeFrom = async (limiter: RateLimiterMemory | RateLimiterRedis, key: string): Promise<Taken> => {
    await limiter.consume(key);
    return { reward: () => limiter.reward(key).catch((error: unknown) => shared?.redis.failed('login counter', error)) };
  };
  return async (key: string): Promise<Taken> => {
    if (remote && shared.redis.available()) {
      try {
        return await takeFrom(remote, key);
      } catch (error) {
        if (error instanceof RateLimiterRes) throw error;
        shared.redis.failed('login counter', error);
      }
    }
    return takeFrom(local, key);
  };
}

// Usernames are kept as hashes: the counters need no one's email address.
const usernameKey = (username: string) => createHash('sha256').update(username.trim().toLowerCase()).digest('base64url');

/**
 * Failed logins, counted per username and per client address: past either limit in a
 * window, further attempts are refused with RATE_LIMITED and retryAfterSeconds, without an
 * upstream call. An attempt takes a point from both counters before it goes upstream (so
 * parallel attempts cannot slip past) and gives it back unless the upstream refused the
 * credentials.
 */
export function createLoginThrottle(limits: Limits, shared?: { redis: RedisConnection; keyPrefix: string }): LoginThrottle {
  const window = { duration: limits.windowSeconds };
  const byUsername = counters({ keyPrefix: 'login-failures:username', points: limits.perUsername, ...window }, shared);
  const byAddress = counters({ keyPrefix: 'login-failures:address', points: limits.perAddress, ...window }, shared);

  return {
    async attempt(username, address, login) {
      const taking = [byUsername(usernameKey(username)), ...(address ? [byAddress(address)] : [])];
      const taken = await Promise.allSettled(taking);
      const giveBack = () => Promise.all(taken.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.reward()] : [])));
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
