// One delivery: a queued message to one target, through its channel's sender. Whichever
// queue runs it (queue-memory.ts in this process, src/redis/notify-queue.ts over Redis), a
// failure is retried with backoff and the target's failures are kept on its record: a
// target failing for NOTIFY_DISABLE_AFTER_MS is disabled, and the customer told on the others.
import type { Logger } from 'pino';
import { z } from 'zod';
import { RateLimitedError } from '../errors.js';
import { storedFieldChange } from '../graph/order-changes.js';
import {
  DeliveryError,
  type Channel,
  type CustomerRecord,
  type DeliveryJob,
  type DeliveryQueue,
  type NotificationStore,
  type Sender,
  type Target,
  type TargetAddress,
} from './contracts.js';
import { messageForDisabled, type MessageContext } from './messages.js';
import { openAddress, type Vault } from './vault.js';

/** Attempts of one delivery in all, the first included (BullMQ's `attempts`). */
export const DELIVERY_ATTEMPTS = 10;
/** The wait before the second attempt; each further one waits twice the previous (about 85 minutes over ten attempts). */
export const DELIVERY_BACKOFF_MS = 10_000;
/** How long a finished job's id is kept: the same key queued again within it is the same job, not another message. */
export const DELIVERY_KEPT_MS = 24 * 60 * 60_000;
/**
 * Finished jobs kept in Redis, delivered and given up each, within DELIVERY_KEPT_MS: BullMQ keeps
 * a finished job whole, so their count is what bounds their memory. A key found again past them
 * (two replicas finding one change, a few seconds apart, is what they are for) is sent once more.
 */
export const DELIVERY_FINISHED_KEPT = 1_000;
/**
 * The most one job takes in Redis: measured with MEMORY USAGE for a message of 12 changes of 120
 * characters carrying a sealed target (10.5 KB; a stage change is about 2.5 KB). The shipped
 * Redis's maxmemory counts it for NOTIFY_QUEUE_JOBS waiting and the finished ones kept.
 */
export const DELIVERY_JOB_REDIS_BYTES = 11 * 1024;

export interface DeliveryRetries {
  attempts: number;
  backoffMs: number;
}

export const DELIVERY_RETRIES: DeliveryRetries = { attempts: DELIVERY_ATTEMPTS, backoffMs: DELIVERY_BACKOFF_MS };

/** The wait after failed attempt `attempt` (1 for the first): exponential from the backoff. */
export const retryDelay = ({ backoffMs }: DeliveryRetries, attempt: number) => backoffMs * 2 ** (attempt - 1);

/** A queue holding NOTIFY_QUEUE_JOBS waiting jobs refuses another. */
export const queueFullError = () => new RateLimitedError('Too many notifications are waiting on this gateway: try again later.');

/** A job's identity in every queue: the target and the message's key (one change, one job per target). */
export const jobId = ({ targetId, message }: DeliveryJob) => `${targetId}.${message.key}`;

// Bounds of a job read back from outside the process (Redis): well above what the gateway writes.
const text = (max: number) => z.string().max(max);
/** A job's shape, read back from the queue's store: what does not fit is not delivered. */
export const deliveryJobShape: z.ZodType<DeliveryJob> = z.object({
  customerId: text(1_000),
  targetId: text(1_000),
  sealed: text(64 * 1024).optional(),
  message: z.object({
    kind: z.enum(['change', 'test', 'disabled', 'ended']),
    key: text(200),
    title: text(10_000),
    body: text(100_000),
    url: text(10_000),
    occurredAt: text(100),
    orderId: text(1_000).optional(),
    changes: z.array(storedFieldChange).max(100).optional(),
  }),
});

export interface DeliveryOptions {
  store: NotificationStore;
  vault: Vault;
  senders: Record<Channel, Sender>;
  /** Where the `disabled` notices go: the queue that runs this delivery (given late: it is made with it). */
  queue: () => DeliveryQueue;
  /** A target failing this long (NOTIFY_DISABLE_AFTER_MS) is disabled at its next failure. */
  disableAfterMs: number;
  /** The shortest wait between two attempts on a failing target (the queue's first backoff). */
  probeMs: number;
  /** What messages are written with. */
  messages: MessageContext;
  logger?: Logger;
}

/**
 * Runs one job: resolves when it was delivered or is not to be (its target removed or
 * disabled, its address unreadable); throws the sender's DeliveryError when it is to be tried
 * again (a permanent one is not retried by the queue).
 */
export function createDelivery({ store, vault, senders, queue, disableAfterMs, probeMs, messages, logger }: DeliveryOptions) {
  const setTarget = (customerId: string, targetId: string, change: (target: Target) => Target) =>
    store.update(
      customerId,
      (current) => current && { ...current, targets: current.targets.map((target) => (target.id === targetId ? change(target) : target)) },
    );

  async function failed(job: DeliveryJob, error: unknown): Promise<void> {
    const now = new Date();
    let disabled: Target | undefined;
    const record = await setTarget(job.customerId, job.targetId, (target) => {
      if (target.disabledAt) return target;
      const failingSince = target.failingSince ?? now.toISOString();
      if (now.getTime() - Date.parse(failingSince) < disableAfterMs)
        return { ...target, failingSince, nextAttemptAt: nextAttempt(failingSince, now.getTime()) };
      disabled = { ...target, failingSince, disabledAt: now.toISOString(), disabledReason: `failed since ${failingSince}` };
      return disabled;
    });
    if (!disabled?.failingSince || !record) throw error;
    logger?.warn({ channel: disabled.channel }, 'a notification target failed for longer than NOTIFY_DISABLE_AFTER_MS: disabled');
    const notice = messageForDisabled(messages, { ...disabled, failingSince: disabled.failingSince }, now.toISOString());
    for (const other of activeTargets(record)) await queue().add({ customerId: job.customerId, targetId: other.id, message: notice });
  }

  // While a target fails, its attempts are spaced by half the time it has been failing (at least
  // half the first backoff), whichever of its messages makes them: one message's own retries
  // (each wait twice the last) always find the target due, but a crowd waiting for one target
  // makes one attempt per space, not one each, so that a failing receiver holds the workers no
  // longer than a working one.
  const nextAttempt = (failingSince: string, now: number) =>
    new Date(now + Math.max(probeMs, now - Date.parse(failingSince)) / 2).toISOString();

  /** Whether this job may attempt its failing target now: the first due takes the attempt, the others wait for their next retry. */
  async function mayAttempt(job: DeliveryJob, target: Target): Promise<boolean> {
    if (!target.failingSince || !target.nextAttemptAt) return true;
    const now = Date.now();
    if (now < Date.parse(target.nextAttemptAt)) return false;
    let taken = false;
    await setTarget(job.customerId, job.targetId, (kept) => {
      taken = !kept.nextAttemptAt || now >= Date.parse(kept.nextAttemptAt);
      return taken && kept.failingSince ? { ...kept, nextAttemptAt: nextAttempt(kept.failingSince, now) } : kept;
    });
    return taken;
  }

  return async function deliver(job: DeliveryJob): Promise<void> {
    const record = await store.get(job.customerId);
    const target = record?.targets.find((candidate) => candidate.id === job.targetId);
    // A final notice carries its target: the record may be gone by now.
    const sealed = job.sealed ?? (target && !target.disabledAt ? target.sealed : undefined);
    if (sealed === undefined) return;
    let address: TargetAddress;
    try {
      address = openAddress(vault, job.customerId, sealed);
    } catch {
      // Its key is gone or it was not sealed for this customer: no attempt can succeed.
      logger?.error({ kind: job.message.kind }, 'a notification target could not be opened: the message is dropped');
      return;
    }
    if (target && !job.sealed && !(await mayAttempt(job, target)))
      throw new DeliveryError('its target is failing and another message is trying it: again at this one’s next retry', false);
    try {
      await senders[address.channel](address, job.message);
    } catch (error) {
      if (!target || job.sealed) throw error;
      await failed(job, error instanceof DeliveryError ? error : new DeliveryError('the sender failed', false));
      return;
    }
    if (target && !job.sealed)
      await setTarget(job.customerId, job.targetId, (kept) => ({
        ...kept,
        lastDeliveredAt: new Date().toISOString(),
        failingSince: null,
        nextAttemptAt: null,
      }));
  };
}

/** The targets a message goes to: those not disabled. */
export const activeTargets = (record: CustomerRecord) => record.targets.filter((target) => !target.disabledAt);
