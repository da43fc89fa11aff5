// The opt-in response cache (RESPONSE_CACHE_TTL_MS): a caller's query responses kept for that
// caller alone, for a few seconds, within a byte budget, forgotten as soon as a live poll
// sees their order change. Responses are kept as JSON text (its bytes are what they take) and
// read back as untrusted: a text counts only when it is a response stored for the very
// caller whose key it sits under. A conditional request (If-None-Match) gets a 304 only
// about the asking caller's own response: the ETag names the query, never the caller.
import { createHash, type Hash } from 'node:crypto';
import { useResponseCache, type Cache } from '@graphql-yoga/plugin-response-cache';
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { z } from 'zod';
import { CLOCK_SKEW_MS, ignoredValues } from '../redis/connection.js';
import { readJson } from '../graph/read-json.js';
import { ERROR_CODES } from '../error-codes.js';
import { ERROR_DETAILS } from '../redis/poll-messages.js';
import { storedBytes, type ResponseStore, type ResponseCacheBytes } from '../redis/response-cache.js';
import { tokenDigest } from '../upstream/auth.js';
import { operationSpec, OPERATION_NAMES } from '../upstream/contract.js';
import type { CallScope } from '../upstream/scope.js';

export interface ResponseCache {
  plugins: Plugin[];
  /** Forgets every response that holds one of these orders. */
  forgetOrders(orderIds: readonly string[]): Promise<void>;
  /** Forgets every response of the caller with this bearer digest (bearerDigest): the upstream refused its token. */
  forgetCaller(digest: string): Promise<void>;
}

// The field the plugin adds to find each entity's id. It removes it again only when the id
// is a value: an object whose id is null (an Address may have none) would keep
// `"__responseCacheId": null` in the response.
const CACHE_ID = '__responseCacheId';

function withoutCacheIds(value: unknown): void {
  if (Array.isArray(value)) for (const item of value) withoutCacheIds(item);
  else if (value !== null && typeof value === 'object') {
    delete (value as Record<string, unknown>)[CACHE_ID];
    for (const field of Object.values(value)) withoutCacheIds(field);
  }
}

/** Responses carry only the fields asked for, whether fresh or from the cache. */
function useNoCacheIdsInResponses(): Plugin {
  return {
    onResultProcess({ result }) {
      for (const single of Array.isArray(result) ? result : [result]) withoutCacheIds((single as { data?: unknown }).data);
    },
  };
}

/**
 * The caller's key, from the request's scope (the server context and the GraphQL context
 * both carry it): a hash of its bearer, for a bearer that has not expired; none otherwise.
 */
function caller(_request: Request | undefined, context: { scope?: CallScope }): string | null {
  const auth = context.scope?.auth;
  return auth && !auth.expired ? tokenDigest(auth) : null;
}

/**
 * JSON into a hash, object keys in order, without recursion: variables come straight from
 * the request (before validation), and may be nested as deep as the body allows.
 */
function updateWithJson(hash: Hash, value: unknown): void {
  const stack: Array<{ text: string } | { value: unknown }> = [{ value }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ('text' in item) {
      hash.update(item.text);
      continue;
    }
    const current = item.value;
    if (current === null || typeof current !== 'object') {
      hash.update(JSON.stringify(current) ?? 'null');
      continue;
    }
    const entries: Array<[string | null, unknown]> = Array.isArray(current)
      ? current.map((each) => [null, each])
      : Object.keys(current)
          .sort()
          .map((key) => [key, (current as Record<string, unknown>)[key]]);
    hash.update(Array.isArray(current) ? '[' : '{');
    stack.push({ text: Array.isArray(current) ? ']' : '}' });
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, each] = entries[i]!;
      stack.push({ value: each });
      stack.push({ text: `${i > 0 ? ',' : ''}${key === null ? '' : `${JSON.stringify(key)}:`}` });
    }
  }
}

/**
 * `<caller>.<hash of the document, the operation name and the variables>`: the caller's part
 * is what a stored response is checked against, and what tells whose key a client-sent one is.
 */
function cacheKey({
  documentString,
  operationName,
  variableValues,
  sessionId,
}: {
  documentString: string;
  operationName?: string | null;
  variableValues?: unknown;
  sessionId?: string | null;
}) {
  const hash = createHash('sha256')
    .update(documentString)
    .update('\0')
    .update(operationName ?? '')
    .update('\0');
  updateWithJson(hash, variableValues ?? {});
  return `${sessionId ?? 'nobody'}.${hash.digest('base64url')}`;
}

/** The caller part of a key; none for a key that has none. */
const callerOf = (key: string) => (key.includes('.') ? key.slice(0, key.indexOf('.')) : null);

/**
 * The ETag a caller is shown for a key: its hash part, quoted (RFC 9110). The caller part
 * stays on the server: it is the SHA-256 of the bearer and the key's name in Redis, and a
 * conditional request is looked up under the asking request's own caller anyway.
 */
const etagOf = (key: string) => `"${key.slice(key.indexOf('.') + 1)}"`;

// A validator as etagOf writes it, strong or weak: a SHA-256 in base64url, quoted.
const VALIDATOR = /^(?:W\/)?"([A-Za-z0-9_-]{43})"$/;
// How many validators of one If-None-Match are looked up (a client sends the one it holds).
const MAX_VALIDATORS = 4;

/** The hashes an If-None-Match names; what is not one of our validators is ignored. */
const requestedHashes = (header: string | null) =>
  (header ?? '')
    .split(',')
    .slice(0, MAX_VALIDATORS)
    .flatMap((candidate) => VALIDATOR.exec(candidate.trim())?.[1] ?? []);

/** Whether the response stored at `lastModified` is what the client has (its If-Modified-Since, when it sends one, is no older). */
function unchangedFor(request: Request, lastModified: string): boolean {
  const since = request.headers.get('if-modified-since');
  return since === null || new Date(since).getTime() >= new Date(lastModified).getTime();
}

/**
 * Conditional requests (If-None-Match), answered 304 only about the asking caller's own
 * responses: a validator names a hash, looked up under the request's own caller (its live
 * bearer's hash), so no header can name another caller's response, and a request without a
 * live bearer gets no 304 at all. It replaces the plugin's own lookup, which took the
 * header's text as the key itself: another caller's ETag sent with any bearer, a forged one
 * included, answered 304 (an oracle for what others had asked and had cached).
 */
function useConditionalRequests(cache: Cache): Plugin {
  return {
    async onRequest({ request, serverContext, fetchAPI, endResponse }) {
      const hashes = requestedHashes(request.headers.get('if-none-match'));
      const who = hashes.length > 0 ? caller(request, serverContext as { scope?: CallScope }) : null;
      if (who === null) return;
      for (const hash of hashes) {
        const cached = await cache.get(`${who}.${hash}`);
        const lastModified = (cached?.extensions?.http as { headers?: Record<string, string> } | undefined)?.headers?.['Last-Modified'];
        if (lastModified === undefined || !unchangedFor(request, lastModified)) continue;
        return endResponse(new fetchAPI.Response(null, { status: 304, headers: { ETag: `"${hash}"`, 'Last-Modified': lastModified } }));
      }
    },
  };
}

/** The ETag the plugin puts on a response (the whole key), shown as etagOf's. */
function useCallerlessEtags(): Plugin {
  return {
    onResultProcess({ result }) {
      for (const single of Array.isArray(result) ? result : [result]) {
        const headers = ((single as ExecutionResult)?.extensions?.http as { headers?: Record<string, string> } | undefined)?.headers;
        if (typeof headers?.ETag === 'string' && headers.ETag.includes('.')) headers.ETag = etagOf(headers.ETag);
      }
    },
  };
}

const storedEntry = z.object({
  caller: z.string(),
  storedAt: z.number().int().nonnegative(),
  result: z.object({
    data: z.record(z.string(), z.unknown()).nullable().optional(),
    errors: z
      .array(
        z.object({
          message: z.string().max(1000),
          path: z.array(z.union([z.string(), z.number().int().nonnegative()])).optional(),
          locations: z.array(z.object({ line: z.number().int(), column: z.number().int() })).optional(),
          extensions: z.object({ code: z.enum(ERROR_CODES), ...ERROR_DETAILS }),
        }),
      )
      .optional(),
  }),
});

/** A response as text: whose it is, when it was made, and its data and errors (nothing else of it). */
function encodeEntry(key: string, result: ExecutionResult): string {
  const lastModified = Date.parse(
    String((result.extensions?.http as { headers?: Record<string, string> } | undefined)?.headers?.['Last-Modified']),
  );
  return JSON.stringify({
    caller: callerOf(key),
    storedAt: Number.isNaN(lastModified) ? Date.now() : lastModified,
    result: { data: result.data, errors: result.errors },
  });
}

// Last-Modified, which storedAt is, has whole seconds: an answer may look up to this much older.
const LAST_MODIFIED_MS = 1000;

/**
 * The response under `key`, if `text` is one stored for that very caller within the last
 * `ttlMs` (Redis's expiry of the key is the store's word on that, and a key may be made to live
 * on); the headers the plugin sends with it are rebuilt.
 */
function decodeEntry(key: string, text: string, ttlMs: number): { ok: true; result: ExecutionResult } | { ok: false; reason: string } {
  const parsed = readJson(storedEntry, text, 'not a stored response');
  if (!parsed.ok) return parsed;
  const { caller: storedFor, storedAt, result } = parsed.value;
  if (callerOf(key) === null || storedFor !== callerOf(key)) return { ok: false, reason: 'stored for another caller than the key names' };
  const age = Date.now() - storedAt;
  if (age > ttlMs + LAST_MODIFIED_MS + CLOCK_SKEW_MS || age < -CLOCK_SKEW_MS)
    return { ok: false, reason: 'stored at a time its ttl does not allow' };
  // The plugin's form (the key); useCallerlessEtags shows the caller its own.
  const headers = { ETag: key, 'Last-Modified': new Date(storedAt).toUTCString() };
  return { ok: true, result: { ...result, extensions: { http: { headers } } } as ExecutionResult };
}

const entityNames = (entities: Iterable<{ typename: string; id?: string | number }>) =>
  [...entities].flatMap(({ typename, id }) => (id == null ? [] : [`${typename}:${id}`]));

// Every response is also linked to its caller, as to an entity: all of a caller's go at once.
const callerEntity = (digest: string) => ({ typename: 'Caller', id: digest });

// The operations the caller's bearer is sent to: their UNAUTHENTICATED is the upstream refusing that token.
const BEARER_OPERATIONS = new Set<string>(OPERATION_NAMES.filter((operation) => operationSpec(operation).auth === 'access'));

/**
 * A request whose bearer the upstream refused (UNAUTHENTICATED from an operation that sent it:
 * revoked, signed out) has its caller's cached responses forgotten before it is answered, on
 * every replica where they are shared: another query of that token no longer comes from the
 * cache. (Until something asks the upstream, a revoked token's responses are served for at
 * most the ttl.)
 */
function useForgetRefusedCallers(forget: (digest: string) => Promise<void>): Plugin {
  return {
    onExecute: ({ args }) => ({
      async onExecuteDone({ result }) {
        if (Symbol.asyncIterator in result) return;
        const refused = result.errors?.some(
          ({ extensions }) => extensions?.code === 'UNAUTHENTICATED' && BEARER_OPERATIONS.has(String(extensions.operation)),
        );
        const who = refused ? caller(undefined, args.contextValue as { scope?: CallScope }) : null;
        if (who !== null) await forget(who);
      },
    }),
  };
}

/** The plugin's cache over a store of texts: responses in, checked responses out (stored within `ttlMs`). */
function entryCache(store: ResponseStore, entryBytes: number, ttlMs: number, logger: Logger | undefined): Cache {
  const ignore = store.ignore ?? ignoredValues(logger);
  return {
    async set(key, result, entities, ttl) {
      if (!(ttl > 0 && Number.isFinite(ttl))) return;
      const text = encodeEntry(key, result);
      // Answered, not kept: one response may not take more than its share.
      if (Buffer.byteLength(text) > entryBytes) return;
      const who = callerOf(key);
      await store.set(key, text, entityNames(who === null ? entities : [...entities, callerEntity(who)]), ttl);
    },
    async get(key) {
      const text = await store.get(key);
      if (text === null) return null;
      const answer = decodeEntry(key, text, ttlMs);
      if (!answer.ok) return (ignore('cached answer', answer.reason), null);
      return answer.result;
    },
    invalidate: (entities) => store.invalidate(entityNames(entities)),
  };
}

/**
 * This process's responses, within `total` bytes (the least recently used go first) and
 * forgotten at their expiry (not merely when asked for again).
 */
export function memoryResponseStore({ entry, total }: ResponseCacheBytes): ResponseStore & { stats(): { entries: number; bytes: number } } {
  const holding = new Map<string, Set<string>>();
  const link = (key: string, entities: readonly string[], add: boolean) => {
    for (const entity of entities) {
      const keys = holding.get(entity) ?? new Set();
      if (add) holding.set(entity, keys.add(key));
      else if (keys.delete(key) && keys.size === 0) holding.delete(entity);
    }
  };
  const answers = new LRUCache<string, { text: string; entities: readonly string[] }>({
    maxSize: total,
    sizeCalculation: ({ text, entities }, key) => storedBytes(key, text, entities),
    ttlAutopurge: true,
    dispose: ({ entities }, key) => link(key, entities, false),
  });
  return {
    async set(key, text, entities, ttlMs) {
      if (Buffer.byteLength(text) > entry) return;
      answers.set(key, { text, entities }, { ttl: ttlMs });
      if (answers.has(key)) link(key, entities, true);
    },
    get: async (key) => answers.get(key)?.text ?? null,
    async invalidate(entities) {
      for (const entity of entities) for (const key of [...(holding.get(entity) ?? [])]) answers.delete(key);
    },
    stats: () => ({ entries: answers.size, bytes: answers.calculatedSize }),
  };
}

/**
 * The maintained plugin (@graphql-yoga/plugin-response-cache) with the caller as its session:
 * a response is found only by a request with the very token it was made for, only responses
 * without errors are kept, so the upstream accepted that token, and a
 * request without a live token neither reads nor fills the cache (the plugin would otherwise
 * share it). Kept in `store` (Redis, shared by the replicas) or in this process's memory.
 */
export function createResponseCache({
  ttlMs,
  bytes,
  store,
  logger,
}: {
  ttlMs: number;
  bytes: ResponseCacheBytes;
  store?: ResponseStore;
  logger?: Logger;
}): ResponseCache {
  const cache = entryCache(store ?? memoryResponseStore(bytes), bytes.entry, ttlMs, logger);
  const forgetCaller = async (digest: string) => {
    await cache.invalidate([callerEntity(digest)]);
  };
  const responseCache = useResponseCache({
    ttl: ttlMs,
    cache,
    session: caller,
    // HTTP requests only: the plugin keys its work by the Request, which a WebSocket
    // operation has none of (it runs afresh).
    enabled: (request, context) => request !== undefined && caller(request, context) !== null,
    buildResponseCacheKey: cacheKey,
    // login and refreshTokens response token sets, nothing any query shows.
    invalidateViaMutation: false,
    // Except the notification targets, which the caller's own mutations change: never kept.
    ttlPerSchemaCoordinate: { 'Query.notifications': 0 },
    // A part the order's stage does not have yet is data (null, no error), so kept with the rest.
    shouldCacheResult: ({ result }) => !result.errors?.length,
  });
  return {
    plugins: [
      useConditionalRequests(cache),
      // Without its own If-None-Match lookup: useConditionalRequests' replaces it.
      { ...responseCache, onRequest: undefined },
      useNoCacheIdsInResponses(),
      useCallerlessEtags(),
      useForgetRefusedCallers(forgetCaller),
    ],
    forgetOrders: async (orderIds) => {
      await cache.invalidate(orderIds.map((id) => ({ typename: 'Order', id })));
    },
    forgetCaller,
  };
}
