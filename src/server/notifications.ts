// Notifications as the gateway runs them: the vault, the store (in Redis when configured, else in
// this process), the delivery queue and the service the graph asks. gateway.ts loads this
// module with import() only when notifications are on: off, nothing of src/notify, web-push,
// nodemailer, standardwebhooks or bullmq is loaded.
import type { Logger } from 'pino';
import type { Notifications } from '../graph/context.js';
import type { DeliveryQueue, NotifySettings } from '../notify/contracts.js';
import { createNotificationService } from '../notify/service.js';
import { memoryNotificationStore } from '../notify/store-memory.js';
import { createVault } from '../notify/vault.js';
import type { RedisConnection } from '../redis/connection.js';
import { redisNotificationStore } from '../redis/notifications.js';

export interface NotificationsOptions {
  settings: NotifySettings;
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

/**
 * What a webhook URL or push endpoint must be when added: https (http too while private
 * addresses are allowed). The connection's own check (safe-address.ts) refuses what resolves
 * to a private address.
 */
function checkUrlOf(settings: NotifySettings) {
  const schemes = settings.allowPrivateAddresses ? ['https:', 'http:'] : ['https:'];
  return async (text: string) => {
    if (!URL.canParse(text)) throw new Error('not an absolute URL');
    const url = new URL(text);
    if (!schemes.includes(url.protocol)) throw new Error(`it must start with ${schemes.map((s) => `${s}//`).join(' or ')}`);
    if (url.username || url.password) throw new Error('it must not carry a user name or password');
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
    checkUrl: checkUrlOf(settings),
    logger,
  });
  return { service, settings, close: () => queue.close() };
}
