// The connections to Redis (ioredis), and whether it answers right now. Everything that
// uses Redis falls back when it does not (login counters to this process's, live polls to
// this process's, the response cache and the order history to none), so requests never
// wait on it longer than one command timeout, and only the first of them does.
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

// ioredis loads with the first connection, not with this module: a gateway without
// REDIS_URL never loads it (a few MB of its idle memory). It is CommonJS, so a synchronous
// require keeps connectRedis synchronous.
const loadIoredis = () => createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

/** Every key and channel of this gateway starts with this, so a Redis can be shared. */
export const KEY_PREFIX = 'order-graph:';

/**
 * How far apart the replicas' clocks may be: a time another replica wrote into Redis (a cached
 * answer's, a live snapshot's) further ahead of this clock, or older than its keeping by more,
 * is one no replica wrote within that keeping (a key made to live on, a hand).
 */
export const CLOCK_SKEW_MS = 5000;

/**
 * `available`: connected, and its last answer came in time. `degraded`: connected, but a
 * command got no answer within the command timeout (a hung or overloaded Redis) and no PING
 * has answered since. `unavailable`: not connected.
 */
export type RedisState = 'available' | 'degraded' | 'unavailable';

export interface RedisConnection {
  /** For commands (PUBLISH too): each fails at once while Redis is unreachable, and after the command timeout while it is hung. */
  commands: Redis;
  /** In subscriber mode (it takes no other command); SUBSCRIBE waits for Redis, and ioredis subscribes again after a reconnection. */
  subscriber: Redis;
  state(): RedisState;
  /** Whether commands are worth sending now: `state() === 'available'`. */
  available(): boolean;
  /**
   * Runs `run` when Redis is available, else gives `fallback` at once. A failure gives the
   * fallback too: a timeout marks Redis degraded; a refusal by Redis (a value of the wrong
   * type, a full Redis) is logged once per `what`.
   */
  attempt<T>(what: string, run: (commands: Redis) => Promise<T>, fallback: T): Promise<T>;
  /** Tells the connection a command failed (for callers that run commands themselves). */
  failed(what: string, error: unknown): void;
  /** Logs that a value read from Redis was ignored: one warn line per kind, not one per value (a flood must not flood the logs). */
  ignore(kind: string, reason: string): void;
  /** Closes both connections. */
  close(): Promise<void>;
}

export interface RedisOptions {
  /** How long any command may take (REDIS_COMMAND_TIMEOUT_MS); past it, Redis counts as degraded. */
  commandTimeoutMs: number;
  logger?: Logger;
}

// While degraded, one PING at a time, this often, finds out when Redis answers again;
// while available, the same PING notices a hung Redis that nothing else asked.
const PROBE_INTERVAL_MS = 1000;
// A kind of warning is logged again after this long at the earliest.
const IGNORED_REPEAT_MS = 3_600_000;

const isTimeout = (error: unknown) => error instanceof Error && error.message === 'Command timed out';

/**
 * Warn lines that a flood cannot multiply: one per kind, then at most one an hour per kind,
 * with how many were left unsaid since.
 */
export function warnOncePerKind(logger: Logger | undefined) {
  const kinds = new Map<string, { loggedAt: number; since: number }>();
  return (kind: string, fields: Record<string, unknown>, message: string) => {
    const seen = kinds.get(kind);
    if (seen && Date.now() - seen.loggedAt < IGNORED_REPEAT_MS) {
      seen.since += 1;
      return;
    }
    kinds.set(kind, { loggedAt: Date.now(), since: 0 });
    logger?.warn({ ...fields, kind, since: seen?.since ?? 0 }, `${message} (one line per kind and hour; since: how many since the last)`);
  };
}

/** Reports a value read from Redis that is not what the gateway writes, and was ignored. */
export function ignoredValues(logger: Logger | undefined) {
  const warn = warnOncePerKind(logger);
  return (kind: string, reason: string) => warn(kind, { reason }, `ignored ${kind} read from Redis: not what the gateway writes`);
}

/**
 * Two connections to `url`: commands, and one subscribing (which takes no other command).
 * An unreachable Redis at start-up or later is no error for the gateway: the connections
 * retry in the background (every 2 s at most). Each change of state is one log line.
 */
export function connectRedis(url: string, { commandTimeoutMs, logger }: RedisOptions): RedisConnection {
  const ioredis = loadIoredis();
  const retryStrategy = (attempt: number) => Math.min(attempt * 100, 2000);
  const commands = new ioredis.Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    retryStrategy,
    connectionName: 'order-graph:commands',
  });
  // No command timeout here: SUBSCRIBE may wait for Redis; nothing of a request waits on it.
  const subscriber = new ioredis.Redis(url, { maxRetriesPerRequest: null, retryStrategy, connectionName: 'order-graph:subscribe' });

  let hung = false;
  const state = (): RedisState => (commands.status !== 'ready' ? 'unavailable' : hung ? 'degraded' : 'available');
  const report = stateReporter(state, commandTimeoutMs, logger);
  const ignore = ignoredValues(logger);
  const warn = warnOncePerKind(logger);

  const failed = (what: string, error: unknown) => {
    if (isTimeout(error)) {
      hung = true;
      return report(`${what}: no answer within ${commandTimeoutMs} ms`);
    }
    // A refusal (a full Redis, a key of another type): this command falls back, Redis is fine.
    if (error instanceof ioredis.ReplyError)
      return warn(`refused ${what}`, { reason: (error as Error).message }, `Redis refused the ${what}; it fell back`);
    logger?.debug({ err: error instanceof Error ? error.message : String(error) }, `Redis ${what} failed`);
  };

  const probe = probeEverySecond(commands, {
    answered: () => {
      hung = false;
      report();
    },
    failed: (error) => failed('PING', error),
  });

  commands.on('ready', () => {
    hung = false;
    report();
  });
  commands.on('close', () => report('connection closed'));
  // ioredis reports each failed attempt here; the changes of state are what is logged.
  for (const connection of [commands, subscriber]) connection.on('error', (error: Error) => report(error.message));

  return {
    commands,
    subscriber,
    state,
    available: () => state() === 'available',
    async attempt(what, run, fallback) {
      if (state() !== 'available') return fallback;
      try {
        return await run(commands);
      } catch (error) {
        failed(what, error);
        return fallback;
      }
    },
    failed,
    ignore,
    async close() {
      clearInterval(probe);
      await Promise.all([commands, subscriber].map((connection) => quit(connection, commandTimeoutMs)));
    },
  };
}

/** A PING a second, one at a time, while connected: whether Redis answers in time. */
function probeEverySecond(commands: Redis, outcome: { answered(): void; failed(error: unknown): void }): NodeJS.Timeout {
  let probing = false;
  return setInterval(() => {
    if (probing || commands.status !== 'ready') return;
    probing = true;
    commands
      .ping()
      .then(outcome.answered, outcome.failed)
      .finally(() => (probing = false));
  }, PROBE_INTERVAL_MS).unref();
}

/**
 * QUIT, which waits for Redis, for one command timeout at most (a hung Redis must not hold
 * the shutdown); a connection that is down, or does not answer, is just dropped.
 */
async function quit(connection: Redis, timeoutMs: number): Promise<void> {
  if (connection.status !== 'ready') return connection.disconnect();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, timeoutMs, 'late')));
  const outcome = await Promise.race([connection.quit().catch(() => 'failed' as const), late]);
  clearTimeout(timer);
  if (outcome !== 'OK') connection.disconnect();
}

/** Logs each change of state once: what falls back while Redis does not answer, and that it is back. */
function stateReporter(state: () => RedisState, commandTimeoutMs: number, logger: Logger | undefined) {
  let last: RedisState | undefined;
  let everAvailable = false;
  const fallback =
    "login throttling falls back to this process's counters, live updates to this process's polls, the response cache and the order history to none";
  return (reason?: string) => {
    const now = state();
    if (now === last) return;
    last = now;
    if (now === 'available') {
      logger?.info(`Redis is available${everAvailable ? ' again' : ''}: login counters, live polls and the response cache are shared`);
      everAvailable = true;
    } else if (now === 'degraded') {
      logger?.warn({ reason, commandTimeoutMs }, `Redis is not answering in time (degraded): ${fallback}, until it answers a PING again`);
    } else {
      logger?.warn({ reason }, `Redis is unavailable: ${fallback}; retrying`);
    }
  };
}

// A string value only when it is a string and no larger than ARGV[1] bytes: one round
// trip, and a huge value is never sent (nor read into this process's memory).
const READ_BOUNDED = `
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then return false end
if kind ~= 'string' then return {'of type ' .. kind} end
local bytes = redis.call('STRLEN', KEYS[1])
if bytes > tonumber(ARGV[1]) then return {bytes .. ' bytes, over ' .. ARGV[1]} end
return redis.call('GET', KEYS[1])`;

/**
 * For a value written compare-and-set: the Lua function `token(key, bound)` gives the key's
 * token, its text's SHA-1 when it is a string of at most `bound` bytes (with the text), else
 * what it is: none, of another type, too large (read as no value, and overwritten by the next
 * write). A write script begins with it and writes only when the token is still the one read.
 */
export const CAS_TOKEN_LUA = `
local function token(key, bound)
  local kind = redis.call('TYPE', key)['ok']
  if kind == 'none' then return {'none'} end
  if kind ~= 'string' then return {'other', 'of type ' .. kind} end
  local bytes = redis.call('STRLEN', key)
  if bytes > bound then return {'over', bytes .. ' bytes, over ' .. bound} end
  local value = redis.call('GET', key)
  return {redis.sha1hex(value), value}
end`;

/** KEYS[1]'s token and text (CAS_TOKEN_LUA); ARGV[1] the bound. */
export const CAS_READ_LUA = `${CAS_TOKEN_LUA}
return token(KEYS[1], tonumber(ARGV[1]))`;

/** What a bounded read found: nothing, the value, or why it was not read. */
export type BoundedRead = { value: string | null } | { refused: string };

/** Reads `key` if it holds a string of at most `maxBytes`. */
export async function readBounded(commands: Redis, key: string, maxBytes: number): Promise<BoundedRead> {
  const reply = (await commands.eval(READ_BOUNDED, 1, key, String(maxBytes))) as string | null | [string];
  return Array.isArray(reply) ? { refused: String(reply[0]) } : { value: reply };
}
