// The delivery queue over Redis (BullMQ), where REDIS_URL is set: a job waits in Redis until
// a replica's worker delivers it, so nothing waiting is lost when a replica stops, and a job
// whose replica died mid-delivery (its lock not renewed) is run again by another: delivered
// once more at most, with the same key. Its job id is the target and the message's key; the
// last DELIVERY_FINISHED_KEPT delivered and given up are kept a day, so the same change found
// twice is one job.
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { DeliveryError, type DeliveryJob, type DeliveryQueue } from '../notify/contracts.js';
import {
  DELIVERY_FINISHED_KEPT,
  DELIVERY_KEPT_MS,
  DELIVERY_RETRIES,
  deliveryJobShape,
  jobId,
  queueFullError,
  type DeliveryRetries,
} from '../notify/delivery.js';
import { KEY_PREFIX, warnOncePerKind } from './connection.js';

const QUEUE = 'deliveries';
/** How long a stop waits for the running deliveries and BullMQ's last commands. */
const CLOSE_WAIT_MS = 10_000;
/** Deliveries one replica runs at once. */
const CONCURRENCY = 8;

export interface RedisQueueOptions {
  url: string;
  /** Runs one job (delivery.ts): a rejection is retried, unless it is a permanent DeliveryError. */
  deliver: (job: DeliveryJob) => Promise<void>;
  /** The most jobs waiting (NOTIFY_QUEUE_JOBS): past it a job is refused (RATE_LIMITED). */
  maxJobs: number;
  retries?: DeliveryRetries;
  /**
   * How long a worker's hold on a running job lasts unless renewed (BullMQ's lockDuration,
   * 30 s), and how often workers look for jobs whose hold lapsed (its stalledInterval, 30 s):
   * how soon a job of a killed replica runs again elsewhere. Tests shrink them.
   */
  lockMs?: number;
  stalledIntervalMs?: number;
  logger?: Logger;
}

/** Runs a job read back from Redis: checked first (a job not of the gateway's shape is not delivered). */
function processor(deliver: (job: DeliveryJob) => Promise<void>, logger: Logger | undefined) {
  return async (job: Job<DeliveryJob>) => {
    const read = deliveryJobShape.safeParse(job.data);
    if (!read.success) return void logger?.warn('a notification job in Redis was not of its shape: dropped');
    try {
      await deliver(read.data);
    } catch (error) {
      // Only a plain word goes into Redis (failedReason): never an address or a sender's text.
      if (error instanceof DeliveryError && error.permanent)
        throw Object.assign(new UnrecoverableError('refused for good'), { cause: error });
      throw new Error('not delivered', { cause: error });
    }
  };
}

export function redisDeliveryQueue({
  url,
  deliver,
  maxJobs,
  retries = DELIVERY_RETRIES,
  lockMs = 30_000,
  stalledIntervalMs = 30_000,
  logger,
}: RedisQueueOptions): DeliveryQueue {
  // BullMQ's own connections: its worker blocks on one, and it requires maxRetriesPerRequest
  // null. The queue's fails at once while Redis is away (no offline queue): an add that cannot
  // be made is the watcher's failure, and the change is found again at its next poll.
  const producer = new Redis(url, { maxRetriesPerRequest: null, enableOfflineQueue: false });
  const consumer = new Redis(url, { maxRetriesPerRequest: null });
  const prefix = `${KEY_PREFIX}notify`;
  // ioredis reports each failed reconnection: one line per kind and hour.
  const warn = warnOncePerKind(logger);
  const reported = (what: string) => (error: Error) =>
    warn(`notify queue ${what}`, { err: error.message }, `the notification queue's ${what} failed`);
  producer.on('error', reported('connection'));
  consumer.on('error', reported('connection'));
  const keep = { age: DELIVERY_KEPT_MS / 1000, count: DELIVERY_FINISHED_KEPT };
  const queue = new Queue<DeliveryJob>(QUEUE, {
    connection: producer,
    prefix,
    defaultJobOptions: {
      attempts: retries.attempts,
      backoff: { type: 'exponential', delay: retries.backoffMs },
      removeOnComplete: keep,
      removeOnFail: keep,
      // A failure's stack would be kept in Redis: its message alone says enough.
      stackTraceLimit: 0,
    },
  });
  queue.on('error', reported('queue'));
  const worker = new Worker<DeliveryJob>(QUEUE, processor(deliver, logger), {
    connection: consumer,
    prefix,
    concurrency: CONCURRENCY,
    lockDuration: lockMs,
    stalledInterval: stalledIntervalMs,
    maxStalledCount: 1,
  });
  worker.on('error', reported('worker'));
  worker.on('failed', (job) => {
    if (job && job.attemptsMade >= (job.opts.attempts ?? 1))
      logger?.warn({ kind: job.name, attempts: job.attemptsMade }, 'a notification was not delivered: given up');
  });

  return {
    async add(job) {
      if ((await queue.count()) >= maxJobs) throw queueFullError();
      await queue.add(job.message.kind, job, { jobId: jobId(job) });
    },
    async close() {
      // What runs finishes (each attempt is bounded by its sender's timeout); with Redis away,
      // BullMQ's commands would wait for it for ever: the connections are cut after a while.
      const closing = Promise.all([worker.close(), queue.close()]).catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closing, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
      clearTimeout(timer);
      producer.disconnect();
      consumer.disconnect();
    },
  };
}
