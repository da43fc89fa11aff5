// The delivery queue in this process, where no Redis is configured: retried with backoff on
// timers, each job once however often its key is found. What waits is lost when the process
// stops (docs/notifications.md): with REDIS_URL, src/redis/notify-queue.ts keeps it.
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { DeliveryError, type DeliveryJob, type DeliveryQueue } from './contracts.js';
import { DELIVERY_KEPT_MS, DELIVERY_RETRIES, jobId, queueFullError, retryDelay, type DeliveryRetries } from './delivery.js';

/** Deliveries run at once at most: each is one request to a push service, a mail server or a webhook. */
const CONCURRENCY = 8;

export interface MemoryQueueOptions {
  /** Runs one job (delivery.ts): a rejection is retried, unless it is a permanent DeliveryError. */
  deliver: (job: DeliveryJob) => Promise<void>;
  /** The most jobs waiting (NOTIFY_QUEUE_JOBS): past it a job is refused (RATE_LIMITED). */
  maxJobs: number;
  /** Attempts and backoff: the defaults unless a test shrinks them. */
  retries?: DeliveryRetries;
  logger?: Logger;
}

interface Waiting {
  job: DeliveryJob;
  attempts: number;
  timer?: NodeJS.Timeout;
}

export function memoryDeliveryQueue({ deliver, maxJobs, retries = DELIVERY_RETRIES, logger }: MemoryQueueOptions): DeliveryQueue & {
  /** Jobs waiting (to run, or to be retried) and running. */
  size(): number;
} {
  const waiting = new Map<string, Waiting>();
  // Finished ids, delivered or given up, kept a day: a key found again is not a new message.
  const finished = new LRUCache<string, true>({ max: maxJobs, ttl: DELIVERY_KEPT_MS });
  const ready: string[] = [];
  const running = new Set<Promise<void>>();
  let closed = false;

  const finish = (id: string) => {
    waiting.delete(id);
    finished.set(id, true);
  };

  async function run(id: string, entry: Waiting): Promise<void> {
    entry.attempts += 1;
    try {
      await deliver(entry.job);
      finish(id);
    } catch (error) {
      const permanent = error instanceof DeliveryError && error.permanent;
      if (permanent || entry.attempts >= retries.attempts || closed) {
        logger?.warn({ kind: entry.job.message.kind, attempts: entry.attempts, permanent }, 'a notification was not delivered: given up');
        return finish(id);
      }
      entry.timer = setTimeout(
        () => {
          entry.timer = undefined;
          ready.push(id);
          pump();
        },
        retryDelay(retries, entry.attempts),
      );
      entry.timer.unref();
    }
  }

  function pump() {
    while (!closed && running.size < CONCURRENCY && ready.length > 0) {
      const id = ready.shift()!;
      const entry = waiting.get(id);
      if (!entry) continue;
      const task = run(id, entry)
        .catch((error: unknown) =>
          logger?.error({ err: error instanceof Error ? error.message : String(error) }, 'a notification delivery failed'),
        )
        .finally(() => {
          running.delete(task);
          pump();
        });
      running.add(task);
    }
  }

  return {
    async add(job) {
      if (closed) return;
      const id = jobId(job);
      if (waiting.has(id) || finished.has(id)) return;
      if (waiting.size >= maxJobs) throw queueFullError();
      waiting.set(id, { job, attempts: 0 });
      ready.push(id);
      pump();
    },
    async close() {
      closed = true;
      for (const entry of waiting.values()) clearTimeout(entry.timer);
      await Promise.all(running);
    },
    size: () => waiting.size,
  };
}
