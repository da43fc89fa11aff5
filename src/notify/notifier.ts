// The notifications' background work, assembled: the watcher polling on the customers'
// behalf, and the queue delivering what it finds (and the `disabled` notices the deliveries
// themselves queue). The server makes one per replica, starts it, and closes it when it stops.
import type { Logger } from 'pino';
import type { Lease } from '../live/coordinator.js';
import type { Order } from '../upstream/models.js';
import type { ScopeLimits } from '../upstream/scope.js';
import type { Channel, DeliveryJob, DeliveryQueue, NotificationStore, Sender } from './contracts.js';
import { createDelivery } from './delivery.js';
import type { MessageContext } from './messages.js';
import type { Vault } from './vault.js';
import { createWatcher, type WatcherUpstream } from './watcher.js';

export interface NotifierOptions {
  store: NotificationStore;
  vault: Vault;
  senders: Record<Channel, Sender>;
  messages: MessageContext;
  /** The queue over a delivery: in this process (queue-memory.ts) or Redis (src/redis/notify-queue.ts). */
  queue: (deliver: (job: DeliveryJob) => Promise<void>) => Promise<DeliveryQueue>;
  upstream: WatcherUpstream;
  newLimits: (customerId: string) => ScopeLimits;
  observe?: (orders: Order[], observedAt: string) => Promise<unknown>;
  lease?: Lease;
  pollIntervalMs: number;
  messagesPerHour: number;
  disableAfterMs: number;
  /** The shortest wait between two attempts on a failing target: the queue's first backoff. */
  probeMs: number;
  logger?: Logger;
}

export async function createNotifier({
  store,
  vault,
  senders,
  messages,
  queue: makeQueue,
  disableAfterMs,
  probeMs,
  logger,
  ...watching
}: NotifierOptions) {
  const deliver = createDelivery({
    store,
    vault,
    senders,
    queue: () => queue,
    disableAfterMs,
    probeMs,
    messages,
    logger,
  });
  const queue = await makeQueue(deliver);
  const watcher = createWatcher({ store, queue, vault, messages, logger, ...watching });
  return {
    /** Where the graph queues a test message. */
    queue,
    start: watcher.start,
    /** Polling stops (its leases released), then the queue (what runs finishes; with Redis, what waits stays there). */
    async close() {
      await watcher.close();
      await queue.close();
    },
  };
}

export type Notifier = Awaited<ReturnType<typeof createNotifier>>;
