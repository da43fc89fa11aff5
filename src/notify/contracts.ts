// What the notification parts agree on: the kept record of a customer who turned notifications
// on, the store that keeps it (in this process, or Redis), a message, the senders and the
// delivery queue. The parts: vault.ts seals what is secret, the graph adds and removes targets,
// the watcher polls on the customer's behalf, the queue delivers through a channel's sender.
import type { FieldChange } from '../graph/mappers.js';

export type Channel = 'WEB_PUSH' | 'EMAIL' | 'WEBHOOK';

/** What reaching a target takes: kept only sealed (vault.ts), never in clear at rest. */
export type TargetAddress =
  | { channel: 'WEB_PUSH'; endpoint: string; keys: { p256dh: string; auth: string } }
  | { channel: 'EMAIL'; email: string }
  | { channel: 'WEBHOOK'; url: string; secret: string };

/** One target, as kept. */
export interface Target {
  id: string;
  channel: Channel;
  /** What the customer sees of it: the push service's host, the address partly hidden, the webhook URL. */
  description: string;
  createdAt: string;
  /** The TargetAddress as JSON, sealed. */
  sealed: string;
  lastDeliveredAt: string | null;
  failingSince: string | null;
  /** While it fails: when its next attempt may be made, whichever message makes it (absent in a record written before it was kept). */
  nextAttemptAt?: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
}

/** Everything kept for one customer with notifications on. */
export interface CustomerRecord {
  customerId: string;
  /** The refresh token the gateway renews with, sealed: the only copy of the customer's session it keeps. */
  refreshToken: string;
  /** The last access token it got, sealed, with its expiry (epoch ms): renewed when it nears it. */
  accessToken: string | null;
  accessExpiresAt: number | null;
  targets: Target[];
  /** Each order's client-visible fields as text at the last poll, by order id (orderFieldValues): null before the first. */
  fields: Record<string, Record<string, string | null>> | null;
  /** When messages were queued within the last hour (epoch ms), for the hourly limit. */
  sentAt: number[];
}

/**
 * Where the records are kept. `update` reads, applies `change` and writes atomically (retried
 * on a concurrent write); `change` returning null deletes the record. A record read back that
 * does not fit its shape counts as absent (and is logged), never trusted.
 */
export interface NotificationStore {
  get(customerId: string): Promise<CustomerRecord | null>;
  update(customerId: string, change: (current: CustomerRecord | null) => CustomerRecord | null): Promise<CustomerRecord | null>;
  /** The ids of every customer with a record. */
  customers(): Promise<string[]>;
}

/** One message to one target. */
export interface Message {
  /** `change`: an order moved; `test`: asked for; `disabled`: another target was disabled; `ended`: the renewal was refused. */
  kind: 'change' | 'test' | 'disabled' | 'ended';
  /** The idempotency key: the same change gives the same key wherever it is found (webhook-id, push topic, Message-ID). */
  key: string;
  title: string;
  body: string;
  /** The tracker page (absolute when PUBLIC_URL is set, else its path). */
  url: string;
  occurredAt: string;
  orderId?: string;
  changes?: FieldChange[];
}

/** A failed attempt: `permanent` when retrying cannot help (the push subscription is gone: 404/410; a 4xx but 408/429). */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** Sends one message on one channel; throws a DeliveryError. */
export type Sender = (address: TargetAddress, message: Message) => Promise<void>;

/** One delivery: the target is read (and opened) when it is made, unless `sealed` carries it (a final notice outlives its target). */
export interface DeliveryJob {
  customerId: string;
  targetId: string;
  message: Message;
  sealed?: string;
}

/** At least once, retried with backoff; a job with a key already queued is the same job. */
export interface DeliveryQueue {
  add(job: DeliveryJob): Promise<void>;
  close(): Promise<void>;
}

/**
 * A store refuses to keep a record: `customers` (a new customer past NOTIFY_CUSTOMERS), `bytes`
 * (a record past NOTIFY_RECORD_BYTES) or `total` (the records together past NOTIFY_BYTES: a
 * record may not grow, nor a new one come, until others shrink or go).
 */
export class StoreLimitError extends Error {
  constructor(readonly limit: 'customers' | 'bytes' | 'total') {
    super(
      limit === 'customers'
        ? 'notification records: NOTIFY_CUSTOMERS reached'
        : limit === 'bytes'
          ? 'notification record: past NOTIFY_RECORD_BYTES'
          : 'notification records: NOTIFY_BYTES reached',
    );
    this.name = 'StoreLimitError';
  }
}

/** What a store keeps at most. */
export interface StoreBounds {
  /** NOTIFY_CUSTOMERS: records at most; a new customer's past it is refused (StoreLimitError 'customers'). */
  customers: number;
  /** NOTIFY_RECORD_BYTES: one record's JSON at most; a larger one is refused (StoreLimitError 'bytes'). */
  recordBytes: number;
  /** NOTIFY_BYTES: every record's JSON together at most; a write that would grow them past it is refused (StoreLimitError 'total'). */
  totalBytes: number;
}

/** One key of NOTIFY_TOKEN_KEYS: its id (written into each sealed value) and its 32 bytes. */
export interface TokenKey {
  id: string;
  key: Uint8Array;
}

/** The notification settings (src/server/config/notifications.ts maps the NOTIFY_* variables to them). */
export interface NotifySettings {
  /** The keys that seal tokens and addresses: the first seals, all open. */
  tokenKeys: readonly TokenKey[];
  /** npm start's demo (the embedded simulator): VAPID keys generated at start, e-mail printed without SMTP_URL, private addresses allowed. */
  demo: boolean;
  pollIntervalMs: number;
  targetsPerCustomer: number;
  messagesPerHour: number;
  disableAfterMs: number;
  /** Records (customers with notifications on) at most. */
  customers: number;
  /** One record's JSON at most, in bytes. */
  recordBytes: number;
  /** Every record's JSON together at most, in bytes. */
  totalBytes: number;
  /** Jobs waiting in the in-process queue at most. */
  queueJobs: number;
  webhookTimeoutMs: number;
  /** http and private addresses allowed for webhooks and push endpoints: tests and the demo only. */
  allowPrivateAddresses: boolean;
  /** The tracker's link in messages (absolute in production). */
  trackerUrl: string;
  /** VAPID: Web Push is offered only with these (the demo generates them at start). */
  vapid: { publicKey: string; privateKey: string; subject: string } | null;
  /** SMTP (nodemailer's URL); null: e-mail only in the demo, printed on stdout. */
  smtpUrl: string | null;
  emailFrom: string;
}
