// The notification records in Redis (with REDIS_URL), shared by every replica: one key per
// customer holding its record's JSON (what is secret in it sealed: vault.ts), and a set of the
// customers who have one. Writes are compare-and-set: the record is read with a token (the
// SHA-1 of its text, computed by Redis), changed here, and a Lua script writes it only if the
// key still has that token, else it is read again and the change tried again. The same script
// keeps the set and its bound (NOTIFY_CUSTOMERS), and each record's size with their sum
// (NOTIFY_BYTES): a new customer or a growing record past them is refused there, so two
// replicas writing at once cannot both pass them. Nothing expires: a record goes with its last
// target, or when the watcher ends it.
import type { Logger } from 'pino';
import { StoreLimitError, type CustomerRecord, type NotificationStore, type StoreBounds } from '../notify/contracts.js';
import { decodeRecord, encodeRecord, recordBytes } from '../notify/record.js';
import { MAX_CUSTOMER_ID_CHARS } from '../graph/order-owner.js';
import { CAS_READ_LUA, CAS_TOKEN_LUA, KEY_PREFIX, type RedisConnection } from './connection.js';

export const NOTIFY_RECORDS = `${KEY_PREFIX}notify:record:`;
export const NOTIFY_CUSTOMERS = `${KEY_PREFIX}notify:customers`;
const NOTIFY_SIZES = `${KEY_PREFIX}notify:sizes`;
const NOTIFY_BYTES = `${KEY_PREFIX}notify:bytes`;

// KEYS[1] the record, KEYS[2] the customers, KEYS[3] each record's bytes by customer, KEYS[4]
// their sum. ARGV: the bound, the token read, the new text ('' deletes), the customer id, the
// most customers, the most bytes together. 1: written; 0: the key changed since; -1: a new
// customer past the most; -2: the records together would grow past the most.
const WRITE = `${CAS_TOKEN_LUA}
if token(KEYS[1], tonumber(ARGV[1]))[1] ~= ARGV[2] then return 0 end
local before = tonumber(redis.call('HGET', KEYS[3], ARGV[4]) or '0') or 0
local total = math.max(0, tonumber(redis.call('GET', KEYS[4]) or '0') or 0)
if ARGV[3] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[4])
  redis.call('HDEL', KEYS[3], ARGV[4])
  redis.call('SET', KEYS[4], math.max(0, total - before))
  return 1
end
if redis.call('SISMEMBER', KEYS[2], ARGV[4]) == 0 and redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[5]) then return -1 end
local bytes = #ARGV[3]
if bytes > before and total - before + bytes > tonumber(ARGV[6]) then return -2 end
redis.call('SADD', KEYS[2], ARGV[4])
redis.call('SET', KEYS[1], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[4], bytes)
redis.call('SET', KEYS[4], total - before + bytes)
return 1`;

/** How many times a change is tried against other replicas changing the same record, and the most it waits before trying again. */
const ATTEMPTS = 10;
const RETRY_JITTER_MS = 20;
/** Customer ids read from the set per SSCAN round. */
const SCAN_COUNT = 1000;

export function redisNotificationStore(redis: RedisConnection, bounds: StoreBounds, logger?: Logger): NotificationStore {
  const key = (customerId: string) => `${NOTIFY_RECORDS}${customerId}`;
  const bound = String(bounds.recordBytes);

  /** Runs a command; Redis away or refusing is the caller's error (no record can be assumed absent). */
  async function run<T>(what: string, command: (commands: RedisConnection['commands']) => Promise<T>): Promise<T> {
    if (!redis.available()) throw new Error(`Redis is ${redis.state()}: notification records cannot be read or written`);
    try {
      return await command(redis.commands);
    } catch (error) {
      redis.failed(what, error);
      throw new Error(`Redis ${what} failed`, { cause: error });
    }
  }

  /** The record and its token; what is not a record of this customer reads as none (and is reported). */
  async function read(customerId: string): Promise<{ token: string; record: CustomerRecord | null }> {
    const [token, detail] = await run(
      'notification record read',
      (c) => c.eval(CAS_READ_LUA, 1, key(customerId), bound) as Promise<string[]>,
    );
    if (token === 'none' || token === undefined) return { token: 'none', record: null };
    if (token === 'other' || token === 'over') {
      redis.ignore('notification record', String(detail));
      return { token, record: null };
    }
    const decoded = decodeRecord(customerId, String(detail));
    if ('problem' in decoded) redis.ignore('notification record', decoded.problem);
    return { token, record: 'record' in decoded ? decoded.record : null };
  }

  return {
    async get(customerId) {
      if (customerId.length > MAX_CUSTOMER_ID_CHARS) return null;
      return (await read(customerId)).record;
    },
    async update(customerId, change) {
      if (customerId.length > MAX_CUSTOMER_ID_CHARS) throw new Error('customer id too long');
      for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * RETRY_JITTER_MS));
        const current = await read(customerId);
        const next = change(current.record);
        if (next !== null && next.customerId !== customerId) throw new Error("a record's customer id is its key's");
        const text = next === null ? '' : encodeRecord(next);
        if (recordBytes(text) > bounds.recordBytes) throw new StoreLimitError('bytes');
        const args = [bound, current.token, text, customerId, String(bounds.customers), String(bounds.totalBytes)];
        const written = await run(
          'notification record write',
          (c) => c.eval(WRITE, 4, key(customerId), NOTIFY_CUSTOMERS, NOTIFY_SIZES, NOTIFY_BYTES, ...args) as Promise<number>,
        );
        if (written === -1) throw new StoreLimitError('customers');
        if (written === -2) throw new StoreLimitError('total');
        if (written === 1) return next;
      }
      logger?.warn({ attempts: ATTEMPTS }, 'a notification record changed under every attempt to write it: the change was not made');
      throw new Error('notification record: too many concurrent writes');
    },
    async customers() {
      const ids: string[] = [];
      let cursor = '0';
      do {
        const [next, page] = await run('notification customers scan', (c) => c.sscan(NOTIFY_CUSTOMERS, cursor, 'COUNT', SCAN_COUNT));
        cursor = next;
        for (const id of page) if (id.length > 0 && id.length <= MAX_CUSTOMER_ID_CHARS) ids.push(id);
      } while (cursor !== '0' && ids.length < bounds.customers);
      return ids.slice(0, bounds.customers);
    },
  };
}
