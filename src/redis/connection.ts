// The connections to Redis (ioredis), and whether it can be reached right now. Everything
// that uses Redis falls back when it cannot (login counters to this process's, live polls
// to this process's, the response cache to none), so requests never wait on it.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Every key and channel of this gateway starts with this, so a Redis can be shared. */
export const KEY_PREFIX = 'order-graph:';

export interface RedisConnection {
  /** For commands (PUBLISH too): they fail at once while Redis is unreachable, and the caller falls back. */
  commands: Redis;
  /** In subscriber mode (it takes no other command); SUBSCRIBE waits for Redis, and ioredis subscribes again after a reconnection. */
  subscriber: Redis;
  /** Whether Redis answered last time it was asked: `ready` on the commands connection. */
  available(): boolean;
  /** Closes both connections. */
  close(): Promise<void>;
}

/**
 * Two connections to `url`: commands, and one subscribing (which takes no other command). An unreachable Redis at start-up or later is no error for the gateway:
 * the connections retry in the background (every 2 s at most), one warn line says Redis is
 * unavailable and what falls back, one info line says when it is back.
 */
export function connectRedis(url: string, logger?: Logger): RedisConnection {
  const retryStrategy = (attempt: number) => Math.min(attempt * 100, 2000);
  const commands = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy, connectionName: 'order-graph:commands' });
  const subscriber = new Redis(url, { maxRetriesPerRequest: null, retryStrategy, connectionName: 'order-graph:subscribe' });

  let up: boolean | undefined;
  const report = (available: boolean, reason?: string) => {
    if (up === available) return;
    const first = up === undefined;
    up = available;
    if (available) logger?.info(`Redis is available${first ? '' : ' again'}: login counters, live polls and the response cache are shared`);
    else {
      logger?.warn(
        { reason },
        'Redis is unavailable: login throttling falls back to this process\'s counters, live updates to this process\'s polls, the response cache to none; retrying',
      );
    }
  };
  commands.on('ready', () => report(true));
  commands.on('close', () => report(false, 'connection closed'));
  // ioredis reports each failed attempt here; the transitions above are what is logged.
  for (const connection of [commands, subscriber]) connection.on('error', (error: Error) => report(false, error.message));

  return {
    commands,
    subscriber,
    available: () => commands.status === 'ready',
    async close() {
      // QUIT waits for Redis; a connection that is down now is just dropped (no retrying).
      await Promise.all(
        [commands, subscriber].map((connection) => (connection.status === 'ready' ? connection.quit().catch(() => connection.disconnect()) : connection.disconnect())),
      );
    },
  };
}
