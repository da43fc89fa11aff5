// Notifications as the gateway runs them: the vault, the store (in Redis when configured, else in
// this process), the delivery queue (BullMQ with REDIS_URL, else in this process), the
// watcher polling on the customers' behalf (one replica per customer: its notify lease), the
// senders, and the service the graph asks. gateway.ts loads this
// module with import() only when notifications are on: off, nothing of src/notify, web-push,
// nodemailer, standardwebhooks or bullmq is loaded.
import type { Logger } from 'pino';
import type { Notifications } from '../graph/context.js';
import type { CodeLabels } from '../graph/code-labels.js';
import type { Order } from '../upstream/models.js';
import type { ScopeLimits } from '../upstream/scope.js';
import { createSenders } from '../notify/channels/index.js';
import type { DeliveryJob, DeliveryQueue, NotifySettings } from '../notify/contracts.js';
import { DELIVERY_RETRIES, type DeliveryRetries } from '../notify/delivery.js';
import { createNotifier } from '../notify/notifier.js';
import { memoryDeliveryQueue } from '../notify/queue-memory.js';
import { longestHoldMs, type WatcherUpstream } from '../notify/watcher.js';
import { checkResolved } from '../notify/safe-address.js';
import { createNotificationService } from '../notify/service.js';
import { memoryNotificationStore } from '../notify/store-memory.js';
import { createVault } from '../notify/vault.js';
import type { RedisConnection } from '../redis/connection.js';
import { redisLease } from '../redis/lease.js';
import { redisNotificationStore } from '../redis/notifications.js';

export interface NotificationsOptions {
  settings: NotifySettings;
  /** The words for the vehicle's codes, in messages. */
  labels: CodeLabels;
  redis?: RedisConnection;
  logger?: Logger;
  /** REDIS_URL: the delivery queue's own connections (BullMQ's) are made from it. */
  redisUrl?: string;
  /** The watcher's upstream calls, made as a live poll's are (gateway.ts: notifyUpstream). */
  upstream: WatcherUpstream;
  newLimits: (customerId: string) => ScopeLimits;
  /** Records a poll's orders in the order history. */
  observe: (orders: Order[], observedAt: string) => Promise<unknown>;
  /** The delivery queue, in place of the gateway's own: set only by tests. */
  queue?: DeliveryQueue;
  /** The queue's retries and (BullMQ's) lock and stalled-job check, in place of the defaults: set only by tests. */
  queueTiming?: NotifyQueueTiming;
}

export interface NotifyQueueTiming {
  retries?: DeliveryRetries;
  lockMs?: number;
  stalledIntervalMs?: number;
}

export interface RunningNotifications {
  service: Notifications;
  /** The settings as running: the demo's generated VAPID keys included. */
  settings: NotifySettings;
  close(): Promise<void>;
}

/** The demo's VAPID keys, made now (lost on restart: the browsers' subscriptions with them). */
async function withDemoKeys(settings: NotifySettings): Promise<NotifySettings> {
  if (!settings.demo || settings.vapid) return settings;
  const { default: webPush } = await import('web-push');
  const { publicKey, privateKey } = webPush.generateVAPIDKeys();
  return { ...settings, vapid: { publicKey, privateKey, subject: 'mailto:notifications@localhost' } };
}

/** The delivery queue: BullMQ's with REDIS_URL (loaded only then), else this process's (lost on restart). */
async function deliveryQueue(options: NotificationsOptions, settings: NotifySettings, deliver: (job: DeliveryJob) => Promise<void>) {
  const { redisUrl, logger, queueTiming = {} } = options;
  if (options.queue) return options.queue;
  const bounds = { deliver, maxJobs: settings.queueJobs, logger, ...queueTiming };
  if (!redisUrl) return memoryDeliveryQueue(bounds);
  const { redisDeliveryQueue } = await import('../redis/notify-queue.js');
  return redisDeliveryQueue({ url: redisUrl, ...bounds });
}

export async function startNotifications(options: NotificationsOptions): Promise<RunningNotifications> {
  const settings = await withDemoKeys(options.settings);
  const { redis, logger } = options;
  const bounds = { customers: settings.customers, recordBytes: settings.recordBytes, totalBytes: settings.totalBytes };
  const store = redis ? redisNotificationStore(redis, bounds, logger) : memoryNotificationStore(bounds);
  const vault = createVault(settings.tokenKeys);
  const messages = { labels: options.labels, trackerUrl: settings.trackerUrl };
  const senders = createSenders({
    ...settings,
    // The demo without SMTP_URL: each mail printed, for a newcomer to read.
    printMail: settings.demo ? (text) => void process.stdout.write(`${text}\n`) : null,
  });
  const notifier = await createNotifier({
    store,
    vault,
    senders,
    messages,
    queue: (deliver) => deliveryQueue(options, settings, deliver),
    upstream: options.upstream,
    newLimits: options.newLimits,
    observe: options.observe,
    lease: redis && redisLease(redis, { name: 'notify', longestHoldMs: longestHoldMs(settings.pollIntervalMs) }),
    pollIntervalMs: settings.pollIntervalMs,
    messagesPerHour: settings.messagesPerHour,
    disableAfterMs: settings.disableAfterMs,
    probeMs: (options.queueTiming?.retries ?? DELIVERY_RETRIES).backoffMs,
    logger,
  });
  const service = createNotificationService({
    settings,
    store,
    vault,
    queue: notifier.queue,
    messages,
    // Refused now when it resolves to a private address; the connection checks again (the answer may change).
    checkUrl: async (url) => void (await checkResolved(url, { allowPrivateAddresses: settings.allowPrivateAddresses })),
    logger,
  });
  notifier.start();
  return {
    service,
    settings,
    close: async () => {
      await notifier.close();
      await senders.close();
    },
  };
}
