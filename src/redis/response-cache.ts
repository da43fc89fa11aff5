// The response cache's storage in Redis, shared by every replica, within a byte budget of
// its own (RESPONSE_CACHE_BYTES, far below Redis's maxmemory, budget.ts): cached responses never
// crowd out the login counters, the live leases or the order histories.
// (@envelop/response-cache-redis keeps a set per type and per entity without expiry, growing
// with every cached response, under keys without a prefix.)
import { BUDGET_LUA, budgetKeys } from './budget.js';
import { KEY_PREFIX, readBounded, type RedisConnection } from './connection.js';

/**
 * Where responses are kept, as text: in Redis (here) or in this process's memory
 * (src/server/response-cache.ts). What a response is, and whether a text is one, is the
 * response cache's business; a store only keeps bytes, within its bounds.
 */
export interface ResponseStore {
  /** Keeps `text` under `key` for `ttlMs`, linked to the entities (`Order:<id>`) it holds. */
  set(key: string, text: string, entities: readonly string[], ttlMs: number): Promise<void>;
  /** The text under `key`; null when there is none (expired, evicted, too large, or the store is out of reach). */
  get(key: string): Promise<string | null>;
  /** Forgets every response linked to one of these entities. */
  invalidate(entities: readonly string[]): Promise<void>;
  /** Where a value that is not a response is reported, when the store is shared with others. */
  ignore?(kind: string, reason: string): void;
}

/**
 * Bytes a response is counted for: its text, its name in the index and in each entity set,
 * and what keeping an entry costs besides (measured in this process's heap: about 400
 * bytes, so that a flood of tiny responses stays within the budget too).
 */
export const storedBytes = (key: string, text: string, entities: readonly string[]) =>
  Buffer.byteLength(text) + 512 + (entities.length + 2) * (Buffer.byteLength(key) + 64);

const CACHE = `${KEY_PREFIX}cache:`;
const RESPONSE_KEY = `${CACHE}answer:`;
const BOOKKEEPING = budgetKeys(CACHE);

// KEYS[1..4] the budget's keys, KEYS[5] the response, KEYS[6..] its entity sets; ARGV: its
// name, text, ttl ms, bytes, the budget, the responses' key prefix. {kept (1 or 0), why the
// budget's books were wrong, if they were}. An answer counts for at most the budget (a larger
// one is not kept); the books live twice the ttl.
const SET = `${BUDGET_LUA}
local name, ttl, bytes = ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4])
if bytes > tonumber(ARGV[5]) then return {0} end
open(ARGV[6], tonumber(ARGV[5]), tonumber(ARGV[5]), 2 * ttl)
make_room(name, bytes)
redis.call('SET', KEYS[5], ARGV[2], 'PX', ttl)
count_in(name, bytes, now + ttl)
close()
for i = 6, #KEYS do
  if redis.call('TYPE', KEYS[i])['ok'] ~= 'set' then redis.call('DEL', KEYS[i]) end
  redis.call('SADD', KEYS[i], name)
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return {1, wrong}`;

// KEYS[5..] entity sets; ARGV: the responses' key prefix, the budget. {1, why the books were
// wrong, if they were}: it cannot count them again (it knows no ttl), so it drops their total
// and the next SET does.
const INVALIDATE = `${BUDGET_LUA}
open(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[2]), nil)
for i = 5, #KEYS do
  if redis.call('TYPE', KEYS[i])['ok'] == 'set' then
    for _, name in ipairs(redis.call('SMEMBERS', KEYS[i])) do
      forget(name)
      redis.call('DEL', ARGV[1] .. name)
    end
  end
  redis.call('DEL', KEYS[i])
end
close()
return {1, wrong}`;

/** The bytes of one response, and of all of them together (RESPONSE_CACHE_ENTRY_BYTES, RESPONSE_CACHE_BYTES). */
export interface ResponseCacheBytes {
  entry: number;
  total: number;
}

/**
 * Responses under `order-graph:cache:answer:<key>` (the key keeps its first name: replicas of two versions share it during a rollout) for their ttl, within `total` bytes for all
 * of them (the oldest evicted first) and `entry` each; for each entity with an id
 * (`Order:<id>`), the set of responses that hold it, expiring with the latest of them. While
 * Redis is unavailable or degraded nothing is cached and nothing is found.
 */
export function redisResponseStore(redis: RedisConnection, { entry: entryBytes, total: totalBytes }: ResponseCacheBytes): ResponseStore {
  const entityKey = (entity: string) => `${CACHE}entity:${entity}`;
  const booksWrong = (reply: [number, string | null] | null) => {
    if (typeof reply?.[1] === 'string') redis.ignore('response cache budget', `${reply[1]}: counted again from the answers there`);
  };
  return {
    async set(key, text, entities, ttlMs) {
      const bytes = storedBytes(key, text, entities);
      if (Buffer.byteLength(text) > entryBytes || bytes > totalBytes) return;
      const keys = [...BOOKKEEPING, `${RESPONSE_KEY}${key}`, ...entities.map(entityKey)];
      const reply = await redis.attempt(
        'response cache write',
        (commands) =>
          commands.eval(SET, keys.length, ...keys, key, text, String(ttlMs), String(bytes), String(totalBytes), RESPONSE_KEY) as Promise<
            [number, string | null]
          >,
        null,
      );
      booksWrong(reply);
    },
    async get(key) {
      const read = await redis.attempt('response cache read', (commands) => readBounded(commands, `${RESPONSE_KEY}${key}`, entryBytes), {
        value: null,
      });
      if ('refused' in read) return (redis.ignore('cached answer', read.refused), null);
      return read.value;
    },
    async invalidate(entities) {
      if (entities.length === 0) return;
      const keys = [...BOOKKEEPING, ...entities.map(entityKey)];
      const reply = await redis.attempt(
        'response cache invalidation',
        (commands) => commands.eval(INVALIDATE, keys.length, ...keys, RESPONSE_KEY, String(totalBytes)) as Promise<[number, string | null]>,
        null,
      );
      booksWrong(reply);
    },
    ignore: redis.ignore,
  };
}
