// What one kind of value keeps in Redis, within a byte budget of its own: a Lua index of the
// kind's keys with their bytes and expiries, oldest first. Redis itself runs noeviction
// (deploy/kubernetes/redis.yaml), so no kind can crowd out another: the response cache's
// answers and the order histories each evict their own oldest before a write that would pass
// their budget, and the login counters, leases and polls are never touched.
//
// The scripts name keys they compute (the ones they evict): a cluster-mode Redis, whose keys
// of one script must share a slot, is not supported.

/** The index (a sorted set: name → expiry), the sizes (a hash: name → bytes) and the bytes in all, under a kind's prefix. */
export const budgetKeys = (prefix: string) => [`${prefix}index`, `${prefix}sizes`, `${prefix}bytes`];

/**
 * The Lua a script of a budgeted kind starts with: KEYS[1..3] are budgetKeys (a key of the
 * wrong type, written by someone else, is dropped rather than failing every write after it);
 * `used` is the kind's bytes, `now` Redis's clock in ms; `forget(name)` takes a name out of
 * the count, `make_room(name, bytes, budget, prefix)` makes room for `name` (its old bytes
 * out, the expired out, then the oldest evicted: their keys, prefix .. name, deleted), and
 * `count_in(name, bytes, expiry, keep_for)` counts it in until `expiry`.
 */
export const BUDGET_LUA = `
local index, sizes, total = KEYS[1], KEYS[2], KEYS[3]
local function expect(key, kind)
  local found = redis.call('TYPE', key)['ok']
  if found ~= 'none' and found ~= kind then redis.call('DEL', key) end
end
expect(index, 'zset') expect(sizes, 'hash') expect(total, 'string')
local used = math.max(tonumber(redis.call('GET', total)) or 0, 0)
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function forget(name)
  used = used - (tonumber(redis.call('HGET', sizes, name)) or 0)
  redis.call('HDEL', sizes, name)
  redis.call('ZREM', index, name)
end
local function make_room(name, bytes, budget, prefix)
  for _, old in ipairs(redis.call('ZRANGE', index, '-inf', now, 'BYSCORE', 'LIMIT', 0, 100)) do forget(old) end
  if redis.call('ZSCORE', index, name) then forget(name) end
  while used + bytes > budget do
    local oldest = redis.call('ZRANGE', index, 0, 0)[1]
    if not oldest then used = 0 break end
    forget(oldest)
    redis.call('DEL', prefix .. oldest)
  end
end
local function count_in(name, bytes, expiry, keep_for)
  redis.call('ZADD', index, expiry, name)
  redis.call('HSET', sizes, name, bytes)
  used = used + bytes
  redis.call('SET', total, used)
  for _, key in ipairs({index, sizes, total}) do redis.call('PEXPIRE', key, keep_for) end
end`;
