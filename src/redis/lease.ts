// A lease in Redis: one holder per id across replicas, taken for a time and renewed by its
// holder, expiring unless renewed so that a dead holder's ids are taken over. The live polls
// (`live:lease:<id>`) and the notification polls (`notify:lease:<id>`) each have their own
// keys over this one implementation.
import { randomUUID } from 'node:crypto';
import type { Lease } from '../live/coordinator.js';
import { KEY_PREFIX, type RedisConnection } from './connection.js';

// Takes the lease when it is free, already this holder's, or not a lease any holder
// writes: one without an expiry, longer than ARGV[3] ms, or not a string. Those would stop
// every poll of the id for good; they count as expired (2 says one was found). For
// ARGV[2] ms; one round trip, atomic.
const CLAIM = `
local kind = redis.call('TYPE', KEYS[1])['ok']
local taken = 1
if kind == 'string' then
  if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    local ttl = redis.call('PTTL', KEYS[1])
    if ttl > 0 and ttl <= tonumber(ARGV[3]) then return 0 end
    taken = 2
  end
elseif kind ~= 'none' then
  taken = 2
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return taken`;

// Deletes the lease only while it is still this holder's.
const RELEASE = `
if redis.call('TYPE', KEYS[1])['ok'] == 'string' and redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export interface RedisLeaseOptions {
  /** The keys' concern: the lease of id `x` is `<prefix><name>:lease:x`. */
  name: string;
  /** No holder holds the lease longer than this: a longer one was written by someone else (taken over as expired). */
  longestHoldMs: number;
}

/**
 * Leases over Redis, held by this process (a holder id of its own). While Redis does not
 * answer, every claim succeeds: each process works alone rather than none at all.
 */
export function redisLease(redis: RedisConnection, { name, longestHoldMs }: RedisLeaseOptions) {
  const self = randomUUID();
  const key = (id: string) => `${KEY_PREFIX}${name}:lease:${id}`;
  return {
    async claim(id: string, holdMs: number): Promise<boolean> {
      const taken = await redis.attempt(
        `${name} lease claim`,
        (commands) => commands.eval(CLAIM, 1, key(id), self, String(holdMs), String(longestHoldMs)),
        1,
      );
      if (taken === 2)
        redis.ignore(`${name} lease`, 'a lease without an expiry, longer than any holder takes, or not a string: taken over as expired');
      return taken !== 0;
    },
    /** True when this holder held it (and no longer does). */
    release: (id: string): Promise<boolean> =>
      redis.attempt(`${name} lease release`, async (commands) => (await commands.eval(RELEASE, 1, key(id), self)) === 1, false),
  } satisfies Lease;
}
