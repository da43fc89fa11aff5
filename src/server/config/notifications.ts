// Notifications (docs/notifications.md): on with NOTIFY_TOKEN_KEYS, or in npm start's demo in
// front of the embedded simulator; the limits each customer and the gateway keep to; the
// channels' secrets (VAPID, SMTP), which deploy/kubernetes/secret.yaml carries.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { NotifySettings, TokenKey } from '../../notify/contracts.js';
import { flag, integer, MIB } from './kinds.js';

/** NOTIFY_POLL_INTERVAL_MS when unset, in front of the real service: a customer's orders are read every 5 minutes. */
export const NOTIFY_POLL_INTERVAL_MS = 300_000;
/** NOTIFY_POLL_INTERVAL_MS when unset in the demo: a move of the demo order reaches a target within 5 s. */
export const DEMO_NOTIFY_POLL_INTERVAL_MS = 5_000;

// A key id is written into every sealed value (vault.ts), between dots; a key is AES-256's.
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const KEY_BYTES = 32;
const KEYS_MESSAGE =
  'NOTIFY_TOKEN_KEYS must be one or more id:key pairs, comma-separated, each id 1 to 32 of A-Z a-z 0-9 _ - (no id twice) and each key 32 bytes in base64 (openssl rand -base64 32)';

/** `id:base64,…` as keys, or null when it does not fit (the message never repeats the value: it is a secret). */
function tokenKeys(text: string): TokenKey[] | null {
  const keys = text.split(',').map((pair) => {
    const at = pair.indexOf(':');
    const id = pair.slice(0, at).trim();
    const encoded = pair.slice(at + 1).trim();
    const key = Buffer.from(encoded, /[-_]/.test(encoded) ? 'base64url' : 'base64');
    return at > 0 && KEY_ID.test(id) && /^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded) && key.length === KEY_BYTES ? { id, key } : null;
  });
  if (keys.some((key) => key === null) || new Set(keys.map((key) => key!.id)).size !== keys.length) return null;
  return keys as TokenKey[];
}

export const notifyVariables = z.object({
  NOTIFY_TOKEN_KEYS: z
    .string()
    .trim()
    .transform((v, context) => tokenKeys(v) ?? (context.addIssue({ code: 'custom', message: KEYS_MESSAGE }), z.NEVER))
    .optional()
    .meta({
      description:
        "**Secret.** Turns notifications on: the keys that seal each customer's refresh and access tokens and each target's address at rest (AES-256-GCM), as `id:key` pairs, comma-separated, each key 32 bytes in base64 (`openssl rand -base64 32`). The first seals, every one opens: to rotate, put a new key first and keep the old one until every record was renewed once (a poll interval or two).",
      unset: 'notifications off (on with generated keys in front of the embedded simulator, lost on restart)',
    }),
  NOTIFY_POLL_INTERVAL_MS: integer('NOTIFY_POLL_INTERVAL_MS', 1_000, 86_400_000).optional().meta({
    description:
      'How often each customer with notifications on has its orders read on its behalf (one replica per customer): a change reaches the targets within about this long. Minutes, not seconds: the upstream is polled for every such customer whether or not anyone looks.',
    unset: '`300000` (`5000` with the embedded simulator)',
  }),
  NOTIFY_TARGETS_PER_CUSTOMER: integer('NOTIFY_TARGETS_PER_CUSTOMER', 1, 100)
    .default(5)
    .describe('Targets one customer may have (a phone, a laptop, e-mail, two automations); past it, adding one is `RATE_LIMITED`.'),
  NOTIFY_MESSAGES_PER_HOUR: integer('NOTIFY_MESSAGES_PER_HOUR', 1, 1_000)
    .default(12)
    .describe(
      'Messages per customer per hour, a message counting once however many targets it goes to, test messages included; past it a message is not queued (a test is `RATE_LIMITED`).',
    ),
  NOTIFY_DISABLE_AFTER_MS: integer('NOTIFY_DISABLE_AFTER_MS', 60_000, 30 * 86_400_000)
    .default(86_400_000)
    .describe("A target whose every delivery failed for this long is disabled, and the customer's other targets are told."),
  NOTIFY_CUSTOMERS: integer('NOTIFY_CUSTOMERS', 1, 10_000_000)
    .default(10_000)
    .describe(
      'Customers with notifications on at most (in this process, or in Redis for all replicas); past it, a new customer is `RATE_LIMITED`.',
    ),
  NOTIFY_RECORD_BYTES: integer('NOTIFY_RECORD_BYTES', 16 * 1024, 64 * MIB)
    .default(256 * 1024)
    .describe(
      "One customer's record at most, as JSON (its sealed tokens, targets and the order fields the next poll compares with); a customer whose orders do not fit gets one last notice and is stopped.",
    ),
  NOTIFY_BYTES: integer('NOTIFY_BYTES', MIB, 4096 * MIB)
    .default(32 * MIB)
    .describe(
      "Every customer's record together at most, as JSON (in this process, or in Redis for all replicas): a typical one is 3–6 KB, so 32 MiB holds NOTIFY_CUSTOMERS' 10,000 with room. Past it a new customer is `RATE_LIMITED` and a record that would grow is not written (its poll tries again next round).",
    ),
  NOTIFY_QUEUE_JOBS: integer('NOTIFY_QUEUE_JOBS', 100, 10_000_000)
    .default(5_000)
    .describe(
      "Deliveries waiting at most (waiting or to be retried), in this process or in Redis for all replicas: past it a change's message is not queued (its poll finds it again next round) and a test message is `RATE_LIMITED`. Each takes up to 11 KiB in Redis (docs/production.md's Redis sizing counts them).",
    ),
  NOTIFY_WEBHOOK_TIMEOUT_MS: integer('NOTIFY_WEBHOOK_TIMEOUT_MS', 500, 60_000)
    .default(5_000)
    .describe(
      'One delivery attempt to a webhook or push service, connection and answer together; its body is read up to 4 KiB, then dropped.',
    ),
  NOTIFY_ALLOW_PRIVATE_ADDRESSES: flag('NOTIFY_ALLOW_PRIVATE_ADDRESSES').optional().meta({
    description:
      'Lets webhook URLs and push endpoints be http, and loopback, private or link-local addresses. For tests and the demo: **never in production**, where it lets any customer make the gateway reach its own network.',
    unset: '`off` (`on` with the embedded simulator, except in production)',
  }),
  NOTIFY_TRACKER_URL: z
    .string()
    .trim()
    .refine((v) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol), 'NOTIFY_TRACKER_URL must be an http(s) URL')
    .optional()
    .meta({
      description: 'The link in each message: the order tracker as customers reach it.',
      unset: '`/tracker/` (with the embedded simulator: `http://<HOST>:<PORT>/tracker/`)',
    }),
  VAPID_PUBLIC_KEY: z
    .string()
    .trim()
    .regex(
      /^[A-Za-z0-9_-]{87}$/,
      'VAPID_PUBLIC_KEY must be a P-256 public key in base64url (87 characters: npx web-push generate-vapid-keys)',
    )
    .optional()
    .meta({
      description: 'Web Push: the VAPID public key (base64url), given to browsers.',
      unset: 'no Web Push (the demo generates a pair)',
    }),
  VAPID_PRIVATE_KEY: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'VAPID_PRIVATE_KEY must be a P-256 private key in base64url (43 characters)')
    .optional()
    .meta({ description: '**Secret.** Web Push: the VAPID private key (base64url).', unset: 'no Web Push' }),
  VAPID_SUBJECT: z
    .string()
    .trim()
    .refine(
      (v) => URL.canParse(v) && ['mailto:', 'https:'].includes(new URL(v).protocol),
      'VAPID_SUBJECT must be a mailto: or https: URL, e.g. mailto:ops@example.com',
    )
    .optional()
    .meta({
      description: 'Web Push: who push services may contact about this gateway (`mailto:` or `https:`).',
      unset: "`mailto:` and NOTIFY_EMAIL_FROM's address",
    }),
  SMTP_URL: z
    .string()
    .trim()
    .refine(
      (v) => URL.canParse(v) && ['smtp:', 'smtps:'].includes(new URL(v).protocol),
      'SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtps://user:password@smtp.example.com:465',
    )
    .optional()
    .meta({
      description:
        '**Secret.** E-mail: the SMTP server as nodemailer takes it (`smtps://user:password@host:465`, or `smtp://` with STARTTLS).',
      unset: 'no e-mail (the demo prints each mail on stdout)',
    }),
  NOTIFY_EMAIL_FROM: z
    .string()
    .trim()
    .max(254)
    .refine(
      (v) => /^[^\r\n]*<?[^\s@<>]+@[^\s@<>]+>?$/.test(v),
      'NOTIFY_EMAIL_FROM must be an e-mail address, e.g. Orders <orders@example.com>',
    )
    .default('Order Graph <notifications@localhost>')
    .describe("E-mail: the messages' From."),
});

type NotifyValues = z.output<typeof notifyVariables>;

/** What does not fit between the notification settings. */
export function notifyProblems(values: NotifyValues): string[] {
  const vapid = [values.VAPID_PUBLIC_KEY, values.VAPID_PRIVATE_KEY].filter(Boolean).length;
  return vapid === 1 ? ['VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY go together: set both (npx web-push generate-vapid-keys) or neither'] : [];
}

/**
 * The notification settings, or null when they are off. `simulated`: the embedded simulator
 * serves the upstream (npm start's demo), where they are on even without NOTIFY_TOKEN_KEYS (a
 * key made now), and the tracker's link is `demoTrackerUrl`, where npm start serves it.
 * `production`: a demo served in production (SIMULATOR=on) still allows no private address,
 * unless NOTIFY_ALLOW_PRIVATE_ADDRESSES says so: it may face the internet.
 */
export function notifySettings(
  values: NotifyValues,
  simulated: boolean,
  demoTrackerUrl = '/tracker/',
  production = false,
): NotifySettings | null {
  if (!values.NOTIFY_TOKEN_KEYS && !simulated) return null;
  const address = /<?([^\s<>]+@[^\s<>]+)>?$/.exec(values.NOTIFY_EMAIL_FROM)?.[1] ?? 'notifications@localhost';
  return {
    tokenKeys: values.NOTIFY_TOKEN_KEYS ?? [{ id: 'demo', key: randomBytes(KEY_BYTES) }],
    demo: simulated,
    pollIntervalMs: values.NOTIFY_POLL_INTERVAL_MS ?? (simulated ? DEMO_NOTIFY_POLL_INTERVAL_MS : NOTIFY_POLL_INTERVAL_MS),
    targetsPerCustomer: values.NOTIFY_TARGETS_PER_CUSTOMER,
    messagesPerHour: values.NOTIFY_MESSAGES_PER_HOUR,
    disableAfterMs: values.NOTIFY_DISABLE_AFTER_MS,
    customers: values.NOTIFY_CUSTOMERS,
    recordBytes: values.NOTIFY_RECORD_BYTES,
    totalBytes: values.NOTIFY_BYTES,
    queueJobs: values.NOTIFY_QUEUE_JOBS,
    webhookTimeoutMs: values.NOTIFY_WEBHOOK_TIMEOUT_MS,
    allowPrivateAddresses: values.NOTIFY_ALLOW_PRIVATE_ADDRESSES ?? (simulated && !production),
    trackerUrl: values.NOTIFY_TRACKER_URL ?? (simulated ? demoTrackerUrl : '/tracker/'),
    vapid:
      values.VAPID_PUBLIC_KEY && values.VAPID_PRIVATE_KEY
        ? { publicKey: values.VAPID_PUBLIC_KEY, privateKey: values.VAPID_PRIVATE_KEY, subject: values.VAPID_SUBJECT ?? `mailto:${address}` }
        : null,
    smtpUrl: values.SMTP_URL ?? null,
    emailFrom: values.NOTIFY_EMAIL_FROM,
  };
}
