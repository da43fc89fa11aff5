// Live polls across replicas: one poller per customer (a lease in Redis that expires unless
// renewed, so a dead holder's customers are taken over), its messages fanned out over Redis
// pub/sub to the customer's followers in every process.
//
// Pub/sub is ioredis's own, not @graphql-yoga/redis-event-target: that one leaves the
// promises of its PUBLISH, SUBSCRIBE and UNSUBSCRIBE unhandled, and with Redis gone (or the
// connection closed at shutdown) they become unhandled rejections, which end a Node process.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { localCoordinator, type PollCoordinator, type PollMessage, type PollSnapshot } from '../live/coordinator.js';
import { KEY_PREFIX, type RedisConnection } from './connection.js';

// Takes the lease when it is free or already this process's, for ARGV[2] ms: one round trip, atomic.
const CLAIM = `
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;

// Deletes the lease only while it is still this process's.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** A message as it travels: who sent it, so a process skips its own (it delivered them already). */
interface Envelope {
  origin: string;
  message: PollMessage;
}

/**
 * The coordinator over Redis. Messages reach this process's followers at once and the
 * others' through Redis. While Redis is unreachable every process polls the customers it
 * follows itself and delivers to its own followers (per-replica polling); with Redis back,
 * the lease decides again. The last snapshot of a customer is kept in Redis for three poll
 * intervals, so that a new poller compares with what its predecessor saw and a new
 * follower gets the current state.
 */
export function redisPollCoordinator(redis: RedisConnection, { pollIntervalMs, logger }: { pollIntervalMs: number; logger?: Logger }): PollCoordinator {
  const self = randomUUID();
  const local = localCoordinator();
  const channels = pubSub(redis, logger);
  const lease = (customerId: string) => `${KEY_PREFIX}live:lease:${customerId}`;
  const lastKey = (customerId: string) => `${KEY_PREFIX}live:last:${customerId}`;
  const channel = (customerId: string) => `${KEY_PREFIX}live:${customerId}`;

  /** A command whose failure means "Redis is unavailable": the fallback's value instead. */
  async function command<T>(run: () => Promise<T>, fallback: T): Promise<T> {
    if (!redis.available()) return fallback;
    try {
      return await run();
    } catch (error) {
      logger?.debug({ err: error instanceof Error ? error.message : String(error) }, 'Redis command failed; falling back');
      return fallback;
    }
  }

  return {
    claim: (customerId, holdMs) => command(async () => (await redis.commands.eval(CLAIM, 1, lease(customerId), self, String(holdMs))) === 1, true),
    release: async (customerId) => {
      if (!(await command(async () => (await redis.commands.eval(RELEASE, 1, lease(customerId), self)) === 1, false))) return;
      // The others following this customer take it over now rather than when the lease expires.
      channels.send(channel(customerId), { origin: self, message: { kind: 'released' } });
    },
    last: (customerId) =>
      command(async () => {
        const text = await redis.commands.get(lastKey(customerId));
        return text ? (JSON.parse(text) as PollSnapshot) : null;
      }, null),
    async publish(customerId, message) {
      await local.publish(customerId, message);
      if (message.kind === 'snapshot') {
        await command(() => redis.commands.set(lastKey(customerId), JSON.stringify(message.snapshot), 'PX', 3 * pollIntervalMs), null);
      }
      channels.send(channel(customerId), { origin: self, message });
    },
    follow(customerId, listener) {
      const unfollow = local.follow(customerId, listener);
      const stopListening = channels.listen(channel(customerId), (envelope) => {
        if (envelope.origin !== self) listener(envelope.message);
      });
      return () => {
        stopListening();
        unfollow();
      };
    },
  };
}

/** Redis pub/sub for envelopes: one SUBSCRIBE per channel however many listeners, every failure handled. */
function pubSub(redis: RedisConnection, logger: Logger | undefined) {
  const listeners = new Map<string, Set<(envelope: Envelope) => void>>();
  const failed = (command: string) => (error: Error) => logger?.debug({ err: error.message }, `Redis ${command} failed`);
  redis.subscriber.on('message', (channel: string, text: string) => {
    const set = listeners.get(channel);
    if (!set) return;
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      return logger?.warn({ channel }, 'a message on a live channel was not JSON; ignored');
    }
    for (const listener of set) listener(envelope);
  });
  return {
    listen(channel: string, listener: (envelope: Envelope) => void): () => void {
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        // Waits while Redis is away; ioredis subscribes again after a reconnection.
        redis.subscriber.subscribe(channel).catch(failed('SUBSCRIBE'));
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size > 0) return;
        listeners.delete(channel);
        redis.subscriber.unsubscribe(channel).catch(failed('UNSUBSCRIBE'));
      };
    },
    send(channel: string, envelope: Envelope) {
      // Only while Redis is there: a message queued through an outage would arrive stale.
      if (redis.available()) redis.commands.publish(channel, JSON.stringify(envelope)).catch(failed('PUBLISH'));
    },
  };
}
