// The state replicas share (Redis), and the opt-in response cache.
import { z } from 'zod';
import type { ResponseCacheBytes } from '../../redis/response-cache.js';
import { integer, MIB } from './kinds.js';

export const redisVariables = z.object({
  REDIS_URL: z
    .string()
    .trim()
    .refine(
      (v) => URL.canParse(v) && ['redis:', 'rediss:'].includes(new URL(v).protocol),
      'REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://redis:6379',
    )
    .optional()
    .describe(
      '`redis://` or `rediss://`: the state the replicas share (login counters, live polls, order histories, cached answers). Unset: each process keeps its own, as a single replica needs.',
    ),
  REDIS_COMMAND_TIMEOUT_MS: integer('REDIS_COMMAND_TIMEOUT_MS', 10, 60_000)
    .default(500)
    .describe(
      'How long any Redis command may take. Past it the replica works alone (its own login counters and polls, no cache) until Redis answers a PING again (one a second), and `/readyz` says `"redis": "degraded"`.',
    ),
  RESPONSE_CACHE_TTL_MS: integer('RESPONSE_CACHE_TTL_MS', 0, 60_000)
    .default(0)
    .describe(
      "How long a caller's query answers are kept, for that caller alone; `0`: no response cache. In Redis when `REDIS_URL` is set, else in memory. HTTP only: a query over a WebSocket runs afresh.",
    ),
  RESPONSE_CACHE_ENTRY_BYTES: integer('RESPONSE_CACHE_ENTRY_BYTES', 1_000, 100 * MIB)
    .default(MIB)
    .describe('The largest answer the response cache keeps; a larger one is answered, not kept.'),
  RESPONSE_CACHE_BYTES: integer('RESPONSE_CACHE_BYTES', 10_000, 4096 * MIB)
    .default(32 * MIB)
    .describe(
      'All cached answers together, in this process or in Redis for all replicas. Past it the least recently used (in memory) or the oldest (in Redis) go first; expired answers go at their ttl.',
    ),
});

export const responseCacheBytes = (values: z.output<typeof redisVariables>): ResponseCacheBytes => ({
  entry: values.RESPONSE_CACHE_ENTRY_BYTES,
  total: values.RESPONSE_CACHE_BYTES,
});
