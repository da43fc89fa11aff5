// The response cache's storage in Redis, shared by every replica. (@envelop/response-cache-redis
// keeps a set per type and per entity without expiry, growing with every cached answer, under
// keys without a prefix; this keeps nothing longer than the answers it indexes.)
import type { Cache } from '@graphql-yoga/plugin-response-cache';
import type { Logger } from 'pino';
import { KEY_PREFIX, type RedisConnection } from './connection.js';

/**
 * Answers under `order-graph:cache:answer:<key>` for their ttl, and for each entity with an
 * id (`Order:<id>`), the set of answers that hold it, expiring with the latest of them. An
 * entity's invalidation deletes its answers. While Redis is unreachable nothing is cached
 * and nothing is found: every request is answered from the upstream.
 */
export function redisResponseCache(redis: RedisConnection, logger?: Logger): Cache {
  const answer = (key: string) => `${KEY_PREFIX}cache:answer:${key}`;
  const entity = (typename: string, id: string | number) => `${KEY_PREFIX}cache:entity:${typename}:${id}`;
  const attempt = async <T>(what: string, run: () => Promise<T>, fallback: T): Promise<T> => {
    if (!redis.available()) return fallback;
    try {
      return await run();
    } catch (error) {
      logger?.debug({ err: error instanceof Error ? error.message : String(error) }, `response cache ${what} failed`);
      return fallback;
    }
  };
  return {
    set: (key, result, entities, ttl) =>
      attempt('set', async () => {
        const pipeline = redis.commands.pipeline().set(answer(key), JSON.stringify(result), 'PX', ttl);
        for (const { typename, id } of entities) {
          if (id == null) continue;
          pipeline.sadd(entity(typename, id), key).pexpire(entity(typename, id), ttl);
        }
        await pipeline.exec();
      }, undefined),
    get: (key) =>
      attempt('get', async () => {
        const text = await redis.commands.get(answer(key));
        return text ? JSON.parse(text) : null;
      }, null),
    invalidate: (entities) =>
      attempt('invalidation', async () => {
        for (const { typename, id } of entities) {
          if (id == null) continue;
          const keys = await redis.commands.smembers(entity(typename, id));
          await redis.commands.del(entity(typename, id), ...keys.map(answer));
        }
      }, undefined),
  };
}
