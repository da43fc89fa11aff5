// Live polls across replicas: one poller per customer (a lease in Redis that expires unless
// renewed, so a dead holder's customers are taken over), its messages fanned out over Redis
// pub/sub to the customer's followers in every process. What comes back from Redis (the
// last snapshot, the messages, the lease) is checked, never trusted (poll-messages.ts).
//
// Pub/sub is ioredis's own, not @graphql-yoga/redis-event-target: that one leaves the
// promises of its PUBLISH, SUBSCRIBE and UNSUBSCRIBE unhandled, and with Redis gone (or the
// connection closed at shutdown) they become unhandled rejections, which end a Node process.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { localCoordinator, type PollCoordinator, type PollMessage, type PollSnapshot } from '../live/coordinator.js';
import { CLOCK_SKEW_MS, KEY_PREFIX, readBounded, warnOncePerKind, type RedisConnection } from './connection.js';
import { redisLease } from './lease.js';
import { readEnvelope, readSnapshot, type Envelope } from './poll-messages.js';

// No holder holds a lease longer than its longest backoff (the hub's is 5 minutes) plus a
// poll interval; a longer one was written by someone else.
const LONGEST_BACKOFF_MS = 15 * 60_000;

export interface RedisPollOptions {
  pollIntervalMs: number;
  /** The largest snapshot shared or read (LIVE_SNAPSHOT_BYTES): a larger value in Redis is not read. */
  snapshotBytes: number;
  logger?: Logger;
}

/**
 * The coordinator over Redis. Messages reach this process's followers at once and the
 * others' through Redis. While Redis is unavailable or degraded every process polls the
 * customers it follows itself and delivers to its own followers (per-replica polling); with
 * Redis back, the lease decides again. The last snapshot of a customer is kept in Redis for
 * three poll intervals, so that a new poller compares with what its predecessor saw and a
 * new follower gets the current state.
 */
export function redisPollCoordinator(redis: RedisConnection, { pollIntervalMs, snapshotBytes, logger }: RedisPollOptions): PollCoordinator {
  const self = randomUUID();
  const local = localCoordinator();
  const channels = pubSub(redis, snapshotBytes, logger);
  const lastKey = (customerId: string) => `${KEY_PREFIX}live:last:${customerId}`;
  const channel = (customerId: string) => `${KEY_PREFIX}live:${customerId}`;
  const lease = redisLease(redis, { name: 'live', longestHoldMs: LONGEST_BACKOFF_MS + pollIntervalMs });
  // How long a customer's last snapshot is kept: a new poller or stream takes it as now.
  const snapshotKeptMs = 3 * pollIntervalMs;
  const warn = warnOncePerKind(logger);

  const last = (customerId: string) => lastSnapshot(redis, lastKey(customerId), snapshotBytes, snapshotKeptMs);

  async function share(customerId: string, message: PollMessage) {
    const text = JSON.stringify({ origin: self, message } satisfies Envelope);
    if (message.kind === 'snapshot') {
      // The others would not read it: only this process's streams get it.
      if (Buffer.byteLength(text) > snapshotBytes)
        return warn(
          'oversized snapshot',
          { snapshotBytes },
          "a live snapshot larger than LIVE_SNAPSHOT_BYTES is not shared: the customer's streams on other replicas miss it",
        );
      await redis.attempt(
        'live snapshot write',
        (commands) => commands.set(lastKey(customerId), JSON.stringify(message.snapshot), 'PX', snapshotKeptMs),
        null,
      );
    }
    channels.send(channel(customerId), text);
  }

  return {
    claim: lease.claim,
    release: async (customerId) => {
      const released = await lease.release(customerId);
      // The others following this customer take it over now rather than when the lease expires.
      if (released) await share(customerId, { kind: 'released' });
    },
    last,
    async publish(customerId, message) {
      await local.publish(customerId, message);
      await share(customerId, message);
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

/**
 * A customer's last snapshot, read from its key: none when there is none, nor when it is not
 * one (a value of another shape, over `snapshotBytes`, observed longer ago than it is kept
 * (its key made to live on) or ahead of this clock: it would be a new stream's current state
 * while it is not), each reported.
 */
async function lastSnapshot(redis: RedisConnection, key: string, snapshotBytes: number, keptMs: number): Promise<PollSnapshot | null> {
  const read = await redis.attempt('live snapshot read', (commands) => readBounded(commands, key, snapshotBytes), { value: null });
  if ('refused' in read) return (redis.ignore('live snapshot', read.refused), null);
  if (read.value === null) return null;
  const snapshot = readSnapshot(read.value, snapshotBytes);
  if (!snapshot.ok) return (redis.ignore('live snapshot', snapshot.reason), null);
  const age = Date.now() - Date.parse(snapshot.value.observedAt);
  if (age > keptMs + CLOCK_SKEW_MS || age < -CLOCK_SKEW_MS)
    return (redis.ignore('live snapshot', 'observed at a time its keeping does not allow'), null);
  return snapshot.value;
}

/** Redis pub/sub for envelopes: one SUBSCRIBE per channel however many listeners, every failure handled, every message checked. */
function pubSub(redis: RedisConnection, snapshotBytes: number, logger: Logger | undefined) {
  const listeners = new Map<string, Set<(envelope: Envelope) => void>>();
  const failed = (command: string) => (error: Error) => logger?.debug({ err: error.message }, `Redis ${command} failed`);
  redis.subscriber.on('message', (channel: string, text: string) => {
    const set = listeners.get(channel);
    if (!set) return;
    const envelope = readEnvelope(text, snapshotBytes);
    if (!envelope.ok) return redis.ignore('live message', envelope.reason);
    for (const listener of set) {
      // A listener's failure is a bug of this process; it must not end the process from inside ioredis.
      try {
        listener(envelope.value);
      } catch (error) {
        logger?.error({ err: error instanceof Error ? error.message : String(error) }, 'a live listener failed on a message from Redis');
      }
    }
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
    send(channel: string, text: string) {
      // Only while Redis answers: a message queued through an outage would arrive stale.
      if (redis.available()) redis.commands.publish(channel, text).catch((error: unknown) => redis.failed('PUBLISH', error));
    },
  };
}
