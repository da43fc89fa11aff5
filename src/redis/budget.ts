// What one kind of value keeps in Redis, within a byte budget of its own: a Lua index of the
// kind's keys with their bytes and expiries, oldest first. Redis itself runs noeviction
// (deploy/kubernetes/redis.yaml), so no kind can crowd out another: the response cache's
// answers and the order histories each evict their own oldest before a write that would pass
// their budget, and the login counters, leases and polls are never touched.
//
// The books are Redis values like any other: anyone who can write to Redis can write there,
// and a number in them decides what is deleted. So each number is checked before it counts (a
// whole number as the scripts write it, in its range; an expiry its key's own); when one is not,
// the books are counted again from the keys really under the kind's prefix, and the script
// says why (one warn line per kind). A wrong number never deletes an entry: with `bytes in all`
// at 1e400 the next history write deleted every other customer's history. A recount reads every
// key of the kind (150–230 ms in Redis for 20,000 histories): it is for books found wrong only.
//
// The scripts name keys they compute (the ones they evict, the ones a recount finds): a
// cluster-mode Redis, whose keys of one script must share a slot, is not supported.

/**
 * The index (a sorted set: name → expiry), the sizes (a hash: name → bytes), the bytes in all,
 * and when the bytes in all were last added up, under a kind's prefix.
 */
export const budgetKeys = (prefix: string) => [`${prefix}index`, `${prefix}sizes`, `${prefix}bytes`, `${prefix}checked`];

// How often at most the bytes in all are checked against the sum of the sizes (all of them
// read: 9 ms in Redis for 20,000 entries) before an eviction. A total can be a whole number
// in range and still wrong (a script cut short, a hand): one at the budget made every write
// evict one entry, for good.
const SUM_CHECK_MS = 60_000;

/**
 * The Lua a script of a budgeted kind starts with: KEYS[1..4] are budgetKeys; `now` is Redis's
 * clock in ms. `open(prefix, budget, largest, keep)` reads the books of the entries under
 * `prefix` (`largest`: the most bytes one entry is counted for; `keep`: the longest an entry
 * lives, nil where the script does not know it), counting them again when they are wrong;
 * `forget(name)` takes a name out of the count; `make_room(name, bytes)` makes room for
 * `name` (its old bytes out, the expired out, then the oldest evicted: their keys deleted);
 * `count_in(name, bytes, expiry)` counts it in until `expiry`; `close()` writes the bytes in
 * all. `wrong` is why the books were found wrong (false when they were not): the script's
 * second result, for the warn line.
 */
export const BUDGET_LUA = `
local index, sizes, total, checked = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local prefix, budget, largest, keep
local used = 0
-- Why the books were found wrong (the first reason), and whether they are yet to be counted again.
local wrong, dirty = false, false
local function note(reason)
  wrong = wrong or reason
  dirty = true
end

-- A whole number from lo to hi written as the scripts write one (digits only), else nil:
-- NaN, infinities, exponents, signs and fractions are no count.
local function whole(text, lo, hi)
  if type(text) ~= 'string' or #text > 15 or not string.find(text, '^%d+$') then return nil end
  local n = tonumber(text)
  if n < lo or n > hi then return nil end
  return n
end

local function text_bytes(name)
  local key = prefix .. name
  if redis.call('TYPE', key)['ok'] ~= 'string' then return 0 end
  return redis.call('STRLEN', key)
end

-- The bytes a name counts for: its size in the books when it is one a script writes (at least
-- its text, at most the largest entry), else its text's.
local function size_of(name)
  local bytes = text_bytes(name)
  local size = whole(redis.call('HGET', sizes, name), math.max(bytes, 1), largest)
  if size then return size end
  note('an entry size that is not a whole number from its text to the largest entry')
  return bytes
end

-- The books again from the keys there: each key's own expiry (one without gets keep), each
-- size as size_of gives it; the scripts keep the other kinds' keys under other prefixes.
local function recount()
  local names, cursor = {}, '0'
  repeat
    local page = redis.call('SCAN', cursor, 'MATCH', prefix .. '*', 'COUNT', 1000)
    cursor = page[1]
    for _, key in ipairs(page[2]) do names[string.sub(key, #prefix + 1)] = true end
  until cursor == '0'
  local entries = {}
  for name in pairs(names) do
    local ttl = redis.call('PTTL', prefix .. name)
    if ttl == -1 then redis.call('PEXPIRE', prefix .. name, keep) ttl = keep end
    if ttl > 0 then entries[#entries + 1] = {name, size_of(name), now + ttl} end
  end
  redis.call('DEL', index, sizes)
  used = 0
  for _, entry in ipairs(entries) do
    redis.call('ZADD', index, entry[3], entry[1])
    redis.call('HSET', sizes, entry[1], entry[2])
    used = used + entry[2]
  end
  dirty = false
end

local function open(kind_prefix, kind_budget, kind_largest, kind_keep)
  prefix, budget, largest, keep = kind_prefix, kind_budget, kind_largest, kind_keep
  local types = {{index, 'zset'}, {sizes, 'hash'}, {total, 'string'}}
  for _, expected in ipairs(types) do
    local found = redis.call('TYPE', expected[1])['ok']
    if found ~= 'none' and found ~= expected[2] then
      note(expected[1] .. ' of type ' .. found)
      redis.call('DEL', expected[1])
    end
  end
  local check_ttl = redis.call('PTTL', checked)
  if check_ttl == -1 or check_ttl > ${SUM_CHECK_MS} then
    note('a time of the last check that is not one')
    redis.call('DEL', checked)
  end
  local counted = redis.call('GET', total)
  used = whole(counted, 0, budget)
  if counted and not used then note('bytes in all that are not a whole number from 0 to the budget') end
  used = used or 0
  local entries = redis.call('ZCARD', index)
  if entries ~= redis.call('HLEN', sizes) then note('an index and sizes of different entries') end
  if (counted and used > 0) ~= (entries > 0) then note('bytes in all that do not go with the entries') end
  if dirty and keep then recount() end
end

local function forget(name)
  used = used - size_of(name)
  if used < 0 then
    note('bytes in all fewer than the entries counted')
    used = 0
  end
  redis.call('HDEL', sizes, name)
  redis.call('ZREM', index, name)
end

-- An entry whose key is there past the expiry the index gives, or gone before it: the key's
-- own expiry, or out of the books.
local function check_expiry(name, expiry)
  local ttl = redis.call('PTTL', prefix .. name)
  if ttl ~= -2 and expiry > now and math.abs(now + ttl - expiry) <= 1000 then return end
  if ttl == -2 then
    if expiry > now then note('an expiry later than its key') end
    return forget(name)
  end
  note('an expiry that is not its key')
  if ttl == -1 then redis.call('PEXPIRE', prefix .. name, keep) ttl = keep end
  redis.call('ZADD', index, now + ttl, name)
end

local function make_room(name, bytes)
  local past = redis.call('ZRANGE', index, '-inf', now, 'BYSCORE', 'LIMIT', 0, 100, 'WITHSCORES')
  local beyond = redis.call('ZRANGE', index, string.format('(%.0f', now + keep), '+inf', 'BYSCORE', 'LIMIT', 0, 100, 'WITHSCORES')
  for _, found in ipairs({past, beyond}) do
    for i = 1, #found, 2 do check_expiry(found[i], tonumber(found[i + 1])) end
  end
  if used + bytes > budget and not dirty and redis.call('SET', checked, 1, 'PX', ${SUM_CHECK_MS}, 'NX') then
    local sum = 0
    for _, size in ipairs(redis.call('HVALS', sizes)) do sum = sum + (tonumber(size) or 0 / 0) end
    if sum ~= used then note('bytes in all that are not the sum of the sizes') end
  end
  if dirty then recount() end
  if redis.call('ZSCORE', index, name) then forget(name) end
  while used + bytes > budget do
    local oldest = redis.call('ZRANGE', index, 0, 0)[1]
    if not oldest then
      note('bytes in all with no entry left to count them')
      used = 0
      break
    end
    forget(oldest)
    redis.call('DEL', prefix .. oldest)
  end
end

local function count_in(name, bytes, expiry)
  redis.call('ZADD', index, expiry, name)
  redis.call('HSET', sizes, name, bytes)
  used = used + bytes
end

-- The bytes in all written, and the books kept as long as their longest entry; books found
-- wrong where the script could not count them again lose their total: the next write counts.
local function close()
  if dirty and keep then recount() end
  if keep then
    redis.call('SET', total, used)
    for _, key in ipairs({index, sizes, total}) do redis.call('PEXPIRE', key, keep) end
  elseif dirty then
    redis.call('DEL', total)
  elseif redis.call('EXISTS', total) == 1 then
    redis.call('SET', total, used, 'KEEPTTL')
  end
end`;
