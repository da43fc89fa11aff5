// Notifications as the gateway runs them: the vault, the store (in Redis when configured, else in
// this process), the delivery queue and the service the graph asks. gateway.ts loads this
// module with import() only when notifications are on: off, nothing of src/notify, web-push,
// nodemailer, standardwebhooks or bullmq is loaded.
import type { Logger } from 'pino';
import type { Notifications } from '../graph/context.js';
import type { CodeLabels } from '../graph/code-labels.js';
import type { DeliveryQueue, NotifySettings } from '../notify/contracts.js';
import { checkResolved } from '../notify/safe-address.js';
import { createNotificationService } from '../notify/service.js';
import { memoryNotificationStore } from '../notify/store-memory.js';
import { createVault } from '../notify/vault.js';
import type { RedisConnection } from '../redis/connection.js';
import { redisNotificationStore } from '../redis/notifications.js';

export interface NotificationsOptions {
  settings: NotifySettings;
  /** The words for the vehicle's codes, in messages. */
  labels: CodeLabels;
  redis?: RedisConnection;
  logger?: Logger;
  /** The delivery queue, in place of the gateway's own: set only by tests. */
  queue?: DeliveryQueue;
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

/**
 * Until the delivery queue (queue-memory.ts, or BullMQ's with REDIS_URL) is wired in: a job
 * is logged without its contents and dropped.
 */
function unwiredQueue(logger: Logger | undefined): DeliveryQueue {
  return {
    add: async (job) => void logger?.warn({ kind: job.message.kind }, 'no delivery queue in this build: the message was not sent'),
    close: async () => undefined,
  };
}

export async function startNotifications(options: NotificationsOptions): Promise<RunningNotifications> {
  const settings = await withDemoKeys(options.settings);
  const { redis, logger } = options;
  const bounds = { customers: settings.customers, recordBytes: settings.recordBytes };
  const store = redis ? redisNotificationStore(redis, bounds, logger) : memoryNotificationStore(bounds);
  const queue = options.queue ?? unwiredQueue(logger);
  const service = createNotificationService({
    settings,
    store,
    vault: createVault(settings.tokenKeys),
    queue,
    messages: { labels: options.labels, trackerUrl: settings.trackerUrl },
    // Refused now when it resolves to a private address; the connection checks again (the answer may change).
    checkUrl: async (url) => void (await checkResolved(url, { allowPrivateAddresses: settings.allowPrivateAddresses })),
    logger,
  });
  return { service, settings, close: () => queue.close() };
}
