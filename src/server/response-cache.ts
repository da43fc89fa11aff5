// The opt-in response cache (RESPONSE_CACHE_TTL_MS): a caller's query answers kept for that
// caller alone, for a few seconds, forgotten as soon as a live poll sees their order change.
import { createHash } from 'node:crypto';
import { createInMemoryCache, useResponseCache, type Cache } from '@graphql-yoga/plugin-response-cache';
import type { Plugin } from 'graphql-yoga';
import { readAuth } from '../upstream/auth.js';

export interface ResponseCache {
  plugins: Plugin[];
  /** Forgets every answer that holds one of these orders. */
  forgetOrders(orderIds: readonly string[]): Promise<void>;
}

// The field the plugin adds to find each entity's id. It removes it again only when the id
// is a value: an object whose id is null (an Address may have none) would keep
// `"__responseCacheId": null` in the answer.
const CACHE_ID = '__responseCacheId';

function withoutCacheIds(value: unknown): void {
  if (Array.isArray(value)) for (const item of value) withoutCacheIds(item);
  else if (value !== null && typeof value === 'object') {
    delete (value as Record<string, unknown>)[CACHE_ID];
    for (const field of Object.values(value)) withoutCacheIds(field);
  }
}

/** Answers carry only the fields asked for, whether fresh or from the cache. */
function useNoCacheIdsInAnswers(): Plugin {
  return {
    onResultProcess({ result }) {
      for (const single of Array.isArray(result) ? result : [result]) withoutCacheIds((single as { data?: unknown }).data);
    },
  };
}

/** The caller's key: a hash of its bearer, for a bearer that has not expired; none otherwise. */
function caller(request: Request): string | null {
  const auth = readAuth(request.headers.get('authorization'));
  if (!auth.token || auth.expired) return null;
  return createHash('sha256').update(auth.token).digest('base64url');
}

/**
 * The maintained plugin (@graphql-yoga/plugin-response-cache) with the caller as its session:
 * an answer is found only by a request with the very token it was made for, only answers
 * without errors (but NOT_AVAILABLE) are kept, so the upstream accepted that token, and a request without a
 * live token neither reads nor fills the cache (the plugin would otherwise share it). Kept
 * in `store` (Redis, shared by the replicas) or in this process's memory.
 */
export function createResponseCache({ ttlMs, store }: { ttlMs: number; store?: Cache }): ResponseCache {
  const cache = store ?? createInMemoryCache();
  return {
    plugins: [
      useResponseCache({
        ttl: ttlMs,
        cache,
        session: caller,
        enabled: (request) => caller(request) !== null,
        // login and refreshTokens answer token sets, nothing any query shows.
        invalidateViaMutation: false,
        // A part the order's stage does not have yet is as stable as data (the upstream
        // answered, having accepted the token); any other error is not kept.
        shouldCacheResult: ({ result }) => (result.errors ?? []).every((error) => error.extensions?.code === 'NOT_AVAILABLE'),
      }),
      useNoCacheIdsInAnswers(),
    ],
    forgetOrders: async (orderIds) => {
      await cache.invalidate(orderIds.map((id) => ({ typename: 'Order', id })));
    },
  };
}
