// The order histories in Redis (with REDIS_URL): one key per customer holding its history's
// JSON, shared by every replica, each key expiring HISTORY_MAX_AGE_DAYS after its last write,
// and all of them within HISTORY_BYTES of their own (budget.ts: past it, the histories written
// longest ago go first, and nothing else in Redis is touched). Redis keeps them on disk
// (deploy/kubernetes/redis.yaml: an append-only file on a volume), so they outlive a restart.
// Writes are compare-and-set: a replica reads the history with a token (the SHA-1 of the text,
// computed by Redis), makes the new history, and a Lua script writes it only if the key still
// has that token; otherwise it reads again and retries. So two replicas recording the same
// customer at once both get their events in, and neither overwrites the other's. Within one
// process a customer's writes go one after the other, so that the retries only ever race the
// other replicas.
import type { HistoryStore } from '../graph/history.js';
import { BUDGET_LUA, budgetKeys } from './budget.js';
import { CAS_READ_LUA, CAS_TOKEN_LUA, KEY_PREFIX, readBounded, warnOncePerKind, type RedisConnection } from './connection.js';
import { MAX_CUSTOMER_ID_CHARS } from '../graph/order-owner.js';
import type { Logger } from 'pino';

// KEYS[1..4] the budget's keys, KEYS[5] the history. ARGV: the bound, the token read, the new
// text, its expiry in ms, the customer id, its bytes, the budget, the histories' key prefix,
// the most bytes a history counts for. {1}: written (or, larger than the whole budget,
// dropped); {0}: the key changed since; a second value says why the budget's books were wrong.
const WRITE = `${CAS_TOKEN_LUA}
if token(KEYS[5], tonumber(ARGV[1]))[1] ~= ARGV[2] then return {0} end
${BUDGET_LUA}
local name, ttl, bytes = ARGV[5], tonumber(ARGV[4]), tonumber(ARGV[6])
open(ARGV[8], tonumber(ARGV[7]), tonumber(ARGV[9]), ttl)
if bytes > budget then
  if redis.call('ZSCORE', index, name) then forget(name) end
  redis.call('DEL', KEYS[5])
else
  make_room(name, bytes)
  redis.call('SET', KEYS[5], ARGV[3], 'PX', ttl)
  count_in(name, bytes, now + ttl)
end
close()
return {1, wrong}`;

/** How many times a write is tried against other replicas writing the same customer's history, and the most it waits before trying again. */
const ATTEMPTS = 10;
const RETRY_JITTER_MS = 20;

export interface RedisHistoryOptions {
  /** HISTORY_CUSTOMER_BYTES: a larger value is not read (and is overwritten). */
  customerBytes: number;
  /** HISTORY_BYTES: what all the histories may take in Redis, counted as historyBytes does. */
  totalBytes: number;
  /** HISTORY_MAX_AGE_DAYS in ms: each key's expiry, renewed at each write. */
  maxAgeMs: number;
  logger?: Logger;
}

/** The bytes a history is counted for: its text, its key, its name in the budget's index, and Redis's own keeping of them. */
export const historyBytes = (customerId: string, text: string) => Buffer.byteLength(text) + 3 * Buffer.byteLength(customerId) + 200;

/** The most bytes a history of `customerBytes` counts for: the longest customer id, in characters of three bytes each. */
const largestHistory = (customerBytes: number) => customerBytes + historyBytes('\uffff'.repeat(MAX_CUSTOMER_ID_CHARS), '');

const HISTORIES = `${KEY_PREFIX}history:`;
const BOOKKEEPING = budgetKeys(`${KEY_PREFIX}history-budget:`);

export function redisHistoryStore(
  redis: RedisConnection,
  { customerBytes, totalBytes, maxAgeMs, logger }: RedisHistoryOptions,
): HistoryStore {
  const key = (customerId: string) => `${HISTORIES}${customerId}`;
  const warn = warnOncePerKind(logger);
  const budget = [String(totalBytes), HISTORIES, String(largestHistory(customerBytes))];

  /** The history's text and token; a value that is no history-sized string reads as none (and is reported). */
  async function readWithToken(customerId: string): Promise<{ token: string; text: string | null } | null> {
    const reply = await redis.attempt(
      'history read',
      (commands) => commands.eval(CAS_READ_LUA, 1, key(customerId), String(customerBytes)) as Promise<string[]>,
      null,
    );
    if (reply === null) return null;
    const [token, detail] = reply;
    if (token === 'none') return { token, text: null };
    if (token === 'other' || token === 'over') {
      redis.ignore('order history', String(detail));
      return { token: token!, text: null };
    }
    return { token: token!, text: detail ?? null };
  }

  /** One attempt after another until the history is written, or left as it is. */
  async function write(customerId: string, change: (current: string | null) => string | null): Promise<void> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * RETRY_JITTER_MS));
      const current = await readWithToken(customerId);
      if (current === null) return;
      const next = change(current.text);
      if (next === null) return;
      const args = [
        String(customerBytes),
        current.token,
        next,
        String(maxAgeMs),
        customerId,
        String(historyBytes(customerId, next)),
        ...budget,
      ];
      const keys = [...BOOKKEEPING, key(customerId)];
      const reply = await redis.attempt(
        'history write',
        (commands) => commands.eval(WRITE, keys.length, ...keys, ...args) as Promise<[number, string | null]>,
        null,
      );
      if (typeof reply?.[1] === 'string') redis.ignore('history budget', `${reply[1]}: counted again from the histories there`);
      if (reply?.[0] !== 0) return;
    }
    warn(
      'history contention',
      { attempts: ATTEMPTS },
      'an order history write lost to other writers of the same customer every time: this observation was not recorded',
    );
  }

  // The writes under way here, by customer: each entry goes with its customer's last write.
  const writing = new Map<string, Promise<void>>();

  return {
    async read(customerId) {
      const read = await redis.attempt('history read', (commands) => readBounded(commands, key(customerId), customerBytes), {
        value: null,
      });
      if ('refused' in read) return (redis.ignore('order history', read.refused), null);
      return read.value;
    },
    update(customerId, change) {
      const done = (writing.get(customerId) ?? Promise.resolve()).then(() => write(customerId, change));
      writing.set(customerId, done);
      const settled = () => {
        if (writing.get(customerId) === done) writing.delete(customerId);
      };
      done.then(settled, settled);
      return done;
    },
  };
}
