// Polling on the customers' behalf: each interval, the customers who turned notifications on
// are walked; for each, the one replica holding its notify lease renews its access when it
// nears expiry (with the kept refresh token), reads its orders, records them in the order
// history, finds what changed since the last poll by the same diff as the history and the
// live updates, and queues one message per changed order to each active target.
import type { Logger } from 'pino';
import { GatewayError } from '../errors.js';
import { orderChanges, orderFieldValues } from '../graph/order-changes.js';
import { localLease, type Lease } from '../live/coordinator.js';
import type { Order, TokenSet } from '../upstream/models.js';
import type { ScopeLimits } from '../upstream/scope.js';
import { epochToDateTime } from '../upstream/values.js';
import { StoreLimitError, type CustomerRecord, type DeliveryQueue, type Message, type NotificationStore } from './contracts.js';
import { activeTargets } from './delivery.js';
import { messageForChange, messageForEnded, type MessageContext } from './messages.js';
import { countMessage } from './record.js';
import { VaultError, type Vault } from './vault.js';

/** The longest wait between a customer's polls after repeated failures. */
const MAX_BACKOFF_MS = 60 * 60_000;
/** The longest a replica holds a customer's notify lease: a longer one was not written by a watcher. */
export const longestHoldMs = (pollIntervalMs: number) => MAX_BACKOFF_MS + 2 * pollIntervalMs;
/** Customers polled at once by one replica. */
const CONCURRENCY = 4;

/** The upstream calls a poll makes, outside any request, each within the poll's limits (throws a GatewayError). */
export interface WatcherUpstream {
  /** A new token set, the refresh token its own bearer. */
  refreshTokens(refreshToken: string, limits: ScopeLimits): Promise<TokenSet>;
  orderDetails(accessToken: string, limits: ScopeLimits): Promise<Order[]>;
}

export interface WatcherOptions {
  store: NotificationStore;
  queue: DeliveryQueue;
  vault: Vault;
  upstream: WatcherUpstream;
  /** What messages are written with (the code labels, the tracker's link). */
  messages: MessageContext;
  /** One poll's budget (the customer's) and deadline. */
  newLimits: (customerId: string) => ScopeLimits;
  /** Records a poll's order list in the order history, as a query's would be. */
  observe?: (orders: Order[], observedAt: string) => Promise<unknown>;
  /** Who polls each customer: this process unless given (src/redis/lease.ts across replicas). */
  lease?: Lease;
  /** NOTIFY_POLL_INTERVAL_MS. */
  pollIntervalMs: number;
  /** NOTIFY_MESSAGES_PER_HOUR: messages queued per customer within an hour at most (each counts once, whatever its targets). */
  messagesPerHour: number;
  logger?: Logger;
}

/** The renewal was refused: the kept session is over. */
class RenewalRefused extends Error {}

const refusal = (error: unknown) => error instanceof GatewayError && (error.code === 'UNAUTHENTICATED' || error.code === 'FORBIDDEN');

type Polling = Required<Omit<WatcherOptions, 'logger'>> & { logger?: Logger };

/** The access token to poll with: the kept one unless it expires within two intervals, else a renewed one (saved at once). */
async function accessToken(
  { store, vault, upstream, pollIntervalMs }: Polling,
  record: CustomerRecord,
  limits: ScopeLimits,
  renew: boolean,
): Promise<string> {
  const { customerId } = record;
  if (!renew && record.accessToken && (record.accessExpiresAt ?? 0) - Date.now() > 2 * pollIntervalMs)
    return vault.open(customerId, record.accessToken);
  let tokens: TokenSet;
  try {
    tokens = await upstream.refreshTokens(vault.open(customerId, record.refreshToken), limits);
  } catch (error) {
    if (refusal(error)) throw new RenewalRefused();
    throw error;
  }
  const expiresAt = Date.parse(epochToDateTime(tokens.accessExpiration) ?? '');
  // The upstream's refresh tokens are single-use: the new one is the only one from now on
  // (unless the customer handed over another meanwhile: theirs is kept).
  await store.update(customerId, (current) =>
    current && current.refreshToken === record.refreshToken
      ? {
          ...current,
          refreshToken: vault.seal(customerId, tokens.refreshToken),
          accessToken: vault.seal(customerId, tokens.accessToken),
          accessExpiresAt: Number.isFinite(expiresAt) ? expiresAt : null,
        }
      : current,
  );
  return tokens.accessToken;
}

/** The orders now, renewing once more when the kept access token is refused (revoked before its expiry). */
async function currentOrders(polling: Polling, record: CustomerRecord, limits: ScopeLimits): Promise<Order[]> {
  const { upstream, store } = polling;
  try {
    return await upstream.orderDetails(await accessToken(polling, record, limits, false), limits);
  } catch (error) {
    if (!(error instanceof GatewayError && error.code === 'UNAUTHENTICATED')) throw error;
    const latest = (await store.get(record.customerId)) ?? record;
    return await upstream.orderDetails(await accessToken(polling, latest, limits, true), limits);
  }
}

/** The renewal was refused (or the orders no longer fit in a record): one `ended` notice to each active target (carrying its address), then the record goes. */
async function endNotifications({ store, queue, messages, logger }: Polling, record: CustomerRecord): Promise<void> {
  const notice = messageForEnded(messages, record.customerId, record.refreshToken, new Date().toISOString());
  for (const target of activeTargets(record))
    await queue.add({ customerId: record.customerId, targetId: target.id, message: notice, sealed: target.sealed });
  // Unless the customer handed over another refresh token meanwhile.
  await store.update(record.customerId, (current) => (current && current.refreshToken === record.refreshToken ? null : current));
  logger?.info('notifications ended for a customer: the renewal was refused, or the orders no longer fit in a record');
}

/** Each changed order with its changes, against the last poll's fields. */
function changedOrders(
  before: Readonly<Record<string, Record<string, string | null>>>,
  found: Order[],
  fields: Record<string, Record<string, string | null>>,
) {
  return found.flatMap((order) => {
    const changes = orderChanges(before[order.id] ?? {}, fields[order.id]!);
    return changes.length > 0 ? [{ order, changes }] : [];
  });
}

/**
 * The messages of the orders that changed, each counted against the hourly limit in the
 * record (countMessage, as a test message is): those past it are not queued.
 */
async function countedMessages(
  { store, messages, messagesPerHour, logger }: Polling,
  customerId: string,
  changed: ReturnType<typeof changedOrders>,
  fields: Record<string, Record<string, string | null>>,
  observedAt: string,
): Promise<Message[]> {
  if (changed.length === 0) return [];
  let counted = 0;
  await store.update(customerId, (current) => {
    let record = current;
    // Run again on a concurrent write: counted afresh each time.
    for (counted = 0; record && counted < changed.length; counted += 1) {
      const next = countMessage(record, Date.now(), messagesPerHour);
      if (!next) break;
      record = next;
    }
    return record;
  });
  if (counted < changed.length)
    logger?.warn({ over: changed.length - counted, messagesPerHour }, 'a customer reached NOTIFY_MESSAGES_PER_HOUR: changes not notified');
  return changed
    .slice(0, counted)
    .map(({ order, changes }) =>
      messageForChange(messages, { customerId, orderId: order.id, fields: fields[order.id]!, changes, occurredAt: observedAt }),
    );
}

/** One poll of a customer: its orders recorded, compared with the last poll's, the changes queued, the fields saved. */
async function pollCustomer(polling: Polling, record: CustomerRecord): Promise<void> {
  const { store, queue, observe, newLimits } = polling;
  const { customerId } = record;
  const found = await currentOrders(polling, record, newLimits(customerId));
  const observedAt = new Date().toISOString();
  await observe(found, observedAt);
  const latest = (await store.get(customerId)) ?? record;
  const fields = Object.fromEntries(found.map((order) => [order.id, orderFieldValues(order, latest.fields?.[order.id])]));
  // The first poll only sets the baseline: no message for what the customer already had.
  const changed = latest.fields ? changedOrders(latest.fields, found, fields) : [];
  const queued = await countedMessages(polling, customerId, changed, fields, observedAt);
  // Queued before the fields are saved: should this process stop between the two, the next
  // poll finds the same changes, whose keys make them the same jobs.
  for (const message of queued) for (const target of activeTargets(latest)) await queue.add({ customerId, targetId: target.id, message });
  if (JSON.stringify(fields) !== JSON.stringify(latest.fields))
    await store.update(customerId, (current) => current && { ...current, fields });
}

/** Runs `task` on each item, at most `concurrency` at once, until `stopped()`. */
async function eachAtMost<T>(items: readonly T[], concurrency: number, stopped: () => boolean, task: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (!stopped() && next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The watcher of one replica: every interval it walks the store's customers and polls those
 * whose lease it holds. A refused renewal ends the customer's notifications (one notice to
 * each target, the record deleted); any other failure backs off, the customer's lease kept.
 */
export function createWatcher(options: WatcherOptions) {
  const polling: Polling = { ...options, observe: options.observe ?? (async () => ({})), lease: options.lease ?? localLease };
  const { store, lease, pollIntervalMs, logger } = polling;
  // Per customer polled here: failures in a row and when the next try is due.
  const failures = new Map<string, { count: number; dueAt: number }>();
  const held = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> | undefined;
  let closed = false;

  async function visit(customerId: string): Promise<void> {
    const failing = failures.get(customerId);
    if (failing && failing.dueAt > Date.now()) return;
    // Held past the next round, so that a stopped holder is taken over.
    if (!(await lease.claim(customerId, 2 * pollIntervalMs))) return void held.delete(customerId);
    held.add(customerId);
    const record = await store.get(customerId);
    if (!record || activeTargets(record).length === 0) return;
    try {
      await pollCustomer(polling, record);
      failures.delete(customerId);
    } catch (error) {
      // The customer's session is over, its tokens no longer open (their key left NOTIFY_TOKEN_KEYS),
      // or its orders no longer fit in its record: no poll can go on.
      if (error instanceof RenewalRefused || error instanceof VaultError || (error instanceof StoreLimitError && error.limit === 'bytes'))
        return await endNotifications(polling, record);
      const count = (failing?.count ?? 0) + 1;
      const backoffMs = Math.min(pollIntervalMs * 2 ** count, MAX_BACKOFF_MS);
      failures.set(customerId, { count, dueAt: Date.now() + backoffMs });
      // Kept while backing off: the upstream fails for every replica alike.
      await lease.claim(customerId, backoffMs + pollIntervalMs);
      const code = error instanceof GatewayError ? error.code : 'INTERNAL_SERVER_ERROR';
      logger?.warn({ code, failures: count, retryInMs: backoffMs }, 'a notification poll failed');
    }
  }

  async function walk(): Promise<void> {
    const customers = await store.customers();
    const known = new Set(customers);
    for (const id of failures.keys()) if (!known.has(id)) failures.delete(id);
    for (const id of held) if (!known.has(id)) held.delete(id);
    await eachAtMost(
      customers,
      CONCURRENCY,
      () => closed,
      (id) => visit(id).catch((error: unknown) => logger?.error({ err: message(error) }, 'a notification poll could not be made')),
    );
  }

  function schedule(delayMs: number) {
    if (closed) return;
    timer = setTimeout(() => {
      round = walk()
        .catch((error: unknown) =>
          logger?.warn({ err: message(error) }, 'the notified customers could not be read: polled at the next round'),
        )
        .finally(() => schedule(pollIntervalMs));
    }, delayMs);
    timer.unref();
  }

  return {
    /** Polls now, then every interval. */
    start: () => schedule(0),
    /** Stops polling; the leases held here are released, so that another replica polls them at its next round. */
    async close() {
      closed = true;
      clearTimeout(timer);
      await round;
      await Promise.all([...held].map((id) => lease.release(id)));
      held.clear();
    },
  };
}
