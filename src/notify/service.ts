// What the graph asks of notifications (graph/context.ts: Notifications): the settings, a
// customer's targets, adding one with the refresh token handed over (proven at once by renewing
// with it), removing one (the last one takes the record and its tokens with it), and a test
// message queued to one. Everything secret is sealed before it reaches the store (vault.ts).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type {
  NewNotificationTarget,
  NotificationCaller,
  NotificationChannelName,
  Notifications,
  NotificationSettings,
  NotificationTargetParent,
} from '../graph/context.js';
import { BadUserInputError, RateLimitedError } from '../errors.js';
import { STRING_LENGTHS } from '../upstream/models.js';
import { epochToDateTime } from '../upstream/values.js';
import {
  StoreLimitError,
  type CustomerRecord,
  type DeliveryQueue,
  type NotificationStore,
  type NotifySettings,
  type Target,
  type TargetAddress,
} from './contracts.js';
import { newWebhookSecret } from './channels/webhook.js';
import { messageForTest, type MessageContext } from './messages.js';
import { countMessage } from './record.js';
import { openAddress, resealed, sealAddress, VaultError, type Vault } from './vault.js';

/** The longest URL (webhook, push endpoint) taken. */
export const MAX_URL_CHARS = 2048;
/** A P-256 public key, uncompressed (65 bytes), and Web Push's auth secret (16 bytes). */
const P256DH_BYTES = 65;
const AUTH_BYTES = 16;

export interface ServiceOptions {
  settings: NotifySettings;
  store: NotificationStore;
  vault: Vault;
  /** Where test messages go. */
  queue: DeliveryQueue;
  /** What messages are written with (the code labels, the tracker's link). */
  messages: MessageContext;
  /**
   * Refuses a webhook URL or push endpoint the gateway will not send to (safe-address.ts); its
   * message, which never holds the URL, is the caller's error.
   */
  checkUrl(url: string): Promise<void>;
  logger?: Logger;
}

/** The channels the settings allow: WEB_PUSH with VAPID keys, EMAIL with SMTP (or the demo's printed mail), WEBHOOK always. */
export function channelsOf(settings: NotifySettings): NotificationChannelName[] {
  return [
    ...(settings.vapid ? (['WEB_PUSH'] as const) : []),
    ...(settings.smtpUrl || settings.demo ? (['EMAIL'] as const) : []),
    'WEBHOOK' as const,
  ];
}

const targetParent = ({ sealed: _sealed, ...target }: Target): NotificationTargetParent => target;

const randomId = (prefix: string, bytes: number) => `${prefix}${randomBytes(bytes).toString('base64url')}`;

/** The e-mail address with its local part hidden but its first and last letters: a***z@example.com. */
function hiddenEmail(email: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  return `${local.length <= 2 ? local[0] : `${local[0]}${'*'.repeat(3)}${local.at(-1)}`}@${email.slice(at + 1)}`;
}

/** A webhook's origin, with its path hidden (a path often carries the receiver's own secret: Home Assistant's webhook id). */
const webhookDescription = (url: URL) => `${url.origin}${url.pathname === '/' && !url.search ? '' : '/…'}`;

/** A push subscription's key as the browser gave it; `first`: the byte it must start with (0x04: an uncompressed P-256 point). */
function checkedBase64url(value: string, bytes: number, name: string, first?: number): string {
  const decoded = /^[A-Za-z0-9_-]+={0,2}$/.test(value) ? Buffer.from(value, 'base64url') : Buffer.alloc(0);
  if (decoded.length !== bytes || (first !== undefined && decoded[0] !== first))
    throw new BadUserInputError(`subscription.${name} must be ${bytes} bytes in base64url, as PushSubscription.toJSON() gives it.`);
  return value.replace(/=+$/, '');
}

function checkedLength(value: string, max: number, name: string): string {
  if (value.trim() === '') throw new BadUserInputError(`${name} must not be empty.`);
  if (value.length > max) throw new BadUserInputError(`${name} must be at most ${max} characters.`);
  return value;
}

/** When an access token expires, in epoch ms, from the upstream's accessExpiration (seconds or ms); null when unreadable. */
const expiresAt = (accessExpiration: unknown) => {
  const at = epochToDateTime(accessExpiration);
  return at === null ? null : Date.parse(at);
};

type Parts = ServiceOptions & { channels: NotificationChannelName[] };

function available({ channels }: Parts, channel: NotificationChannelName) {
  if (!channels.includes(channel))
    throw new BadUserInputError(
      channel === 'WEB_PUSH'
        ? 'Web Push is not configured on this gateway (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY).'
        : 'E-mail is not configured on this gateway (SMTP_URL).',
    );
}

async function checkedUrl({ checkUrl }: Parts, value: string, name: string): Promise<URL> {
  checkedLength(value, MAX_URL_CHARS, name);
  try {
    await checkUrl(value);
  } catch (error) {
    throw new BadUserInputError(`${name} refused: ${error instanceof Error ? error.message : 'not a URL the gateway sends to'}.`);
  }
  return new URL(value);
}

/** The address the caller gave, checked, with what the customer sees of it. */
async function addressOf(
  parts: Parts,
  caller: NotificationCaller,
  wanted: NewNotificationTarget,
): Promise<{ address: TargetAddress; description: string }> {
  available(parts, wanted.channel);
  switch (wanted.channel) {
    case 'WEB_PUSH': {
      const endpoint = await checkedUrl(parts, wanted.endpoint, 'subscription.endpoint');
      const keys = {
        p256dh: checkedBase64url(wanted.p256dh, P256DH_BYTES, 'p256dh', 0x04),
        auth: checkedBase64url(wanted.auth, AUTH_BYTES, 'auth'),
      };
      return { address: { channel: 'WEB_PUSH', endpoint: endpoint.href, keys }, description: endpoint.host };
    }
    case 'WEBHOOK': {
      const url = await checkedUrl(parts, wanted.url, 'url');
      return { address: { channel: 'WEBHOOK', url: url.href, secret: newWebhookSecret() }, description: webhookDescription(url) };
    }
    case 'EMAIL': {
      const customer = await caller.customer();
      if (customer.emailVerified !== true || !customer.email)
        throw new BadUserInputError("The account's e-mail address is not verified: verify it with the car maker, then add e-mail again.");
      if (customer.email.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(customer.email))
        throw new BadUserInputError("The account's e-mail address cannot take mail.");
      return { address: { channel: 'EMAIL', email: customer.email }, description: hiddenEmail(customer.email) };
    }
  }
}

/** The target of `record` the new address renews: the same push endpoint, or the e-mail target. */
function renewed({ vault }: Parts, record: CustomerRecord | null, address: TargetAddress): Target | undefined {
  if (!record || address.channel === 'WEBHOOK') return undefined;
  return record.targets.find((target) => {
    if (target.channel !== address.channel) return false;
    if (address.channel === 'EMAIL') return true;
    try {
      const kept = openAddress(vault, record.customerId, target.sealed);
      return kept.channel === 'WEB_PUSH' && kept.endpoint === address.endpoint;
    } catch (error) {
      if (!(error instanceof VaultError)) throw error;
      return false;
    }
  });
}

/** Throws what the caller is told when `record` cannot take the target. */
function admit(parts: Parts, record: CustomerRecord | null, address: TargetAddress, handedOver: boolean) {
  const most = parts.settings.targetsPerCustomer;
  if (!record && !handedOver)
    throw new BadUserInputError('refreshToken is required: the gateway keeps none for you yet (it renews your access with it to poll).');
  if (record && !renewed(parts, record, address) && record.targets.length >= most)
    throw new RateLimitedError(`At most ${most} notification targets per customer: remove one first.`);
}

const customersFull = () =>
  new RateLimitedError('This gateway sends notifications to as many customers as it may (NOTIFY_CUSTOMERS): try again later.');
const recordFull = () => new RateLimitedError('Your notification record is as large as it may be: remove a target first.');
const storeFull = () => new RateLimitedError('This gateway keeps as many notification records as it may (NOTIFY_BYTES): try again later.');
const LIMIT_ERRORS = { customers: customersFull, bytes: recordFull, total: storeFull } as const;

type Tokens = Awaited<ReturnType<NotificationCaller['renew']>>;

/** `current` with the target added (or renewed) and the new tokens sealed. */
function withTarget(
  parts: Parts,
  customerId: string,
  current: CustomerRecord | null,
  made: { address: TargetAddress; description: string },
  tokens: Tokens | null,
) {
  const { vault } = parts;
  admit(parts, current, made.address, tokens !== null);
  const same = renewed(parts, current, made.address);
  const target: Target = {
    id: same?.id ?? randomId('tgt_', 12),
    channel: made.address.channel,
    description: made.description,
    createdAt: same?.createdAt ?? new Date().toISOString(),
    sealed: sealAddress(vault, customerId, made.address),
    lastDeliveredAt: same?.lastDeliveredAt ?? null,
    failingSince: null,
    disabledAt: null,
    disabledReason: null,
  };
  // Each write seals again what an older key sealed: a rotation completes as customers come back.
  const base: CustomerRecord = current
    ? resealed(vault, current)
    : {
        customerId,
        refreshToken: '',
        accessToken: null,
        accessExpiresAt: null,
        targets: [],
        fields: null,
        sentAt: [],
      };
  const targets = same ? base.targets.map((kept) => (kept.id === same.id ? target : kept)) : [...base.targets, target];
  const sealedTokens = tokens && {
    refreshToken: vault.seal(customerId, tokens.refreshToken),
    accessToken: vault.seal(customerId, tokens.accessToken),
    accessExpiresAt: expiresAt(tokens.accessExpiration),
  };
  return { record: { ...base, ...sealedTokens, targets }, target };
}

async function add(parts: Parts, caller: NotificationCaller, wanted: NewNotificationTarget, refreshToken: string | null) {
  const { store } = parts;
  if (refreshToken !== null) checkedLength(refreshToken, STRING_LENGTHS.token, 'refreshToken');
  const made = await addressOf(parts, caller, wanted);
  const { id: customerId } = await caller.customer();
  // Everything that can refuse is checked before the refresh token is spent (it is single-use).
  const before = await store.get(customerId);
  admit(parts, before, made.address, refreshToken !== null);
  if (!before && (await store.customers()).length >= parts.settings.customers) throw customersFull();
  const tokens = refreshToken === null ? null : await caller.renew(refreshToken);
  let added: Target | undefined;
  try {
    await store.update(customerId, (current) => {
      const { record, target } = withTarget(parts, customerId, current, made, tokens);
      added = target;
      return record;
    });
  } catch (error) {
    if (error instanceof StoreLimitError) throw LIMIT_ERRORS[error.limit]();
    throw error;
  }
  parts.logger?.info({ channel: made.address.channel, tokenHandedOver: tokens !== null }, 'notification target added');
  return { target: targetParent(added!), secret: made.address.channel === 'WEBHOOK' ? made.address.secret : null };
}

async function remove({ store }: Parts, customerId: string, targetId: string) {
  if (!(await store.get(customerId))?.targets.some((target) => target.id === targetId)) return false;
  let removed = false;
  await store.update(customerId, (current) => {
    const targets = current?.targets.filter((target) => target.id !== targetId) ?? [];
    removed = current !== null && targets.length < current.targets.length;
    // The last target gone, the record goes with it: the gateway keeps no token it has no use for.
    return current && targets.length > 0 ? { ...current, targets } : null;
  });
  return removed;
}

async function sendTest({ store, settings, queue, messages }: Parts, customerId: string, targetId: string) {
  const target = (await store.get(customerId))?.targets.find((candidate) => candidate.id === targetId);
  if (!target) return false;
  if (target.disabledAt) throw new BadUserInputError('This target is disabled: remove it and add it again.');
  const now = Date.now();
  let outcome: 'gone' | 'limited' | 'counted' = 'gone';
  await store.update(customerId, (current) => {
    if (!current?.targets.some((candidate) => candidate.id === targetId)) return current;
    const next = countMessage(current, now, settings.messagesPerHour);
    outcome = next ? 'counted' : 'limited';
    return next ?? current;
  });
  if (outcome === 'gone') return false;
  if (outcome === 'limited')
    throw new RateLimitedError(`At most ${settings.messagesPerHour} messages an hour per customer: try again later.`);
  await queue.add({ customerId, targetId, message: messageForTest(messages, new Date(now).toISOString()) });
  return true;
}

export function createNotificationService(options: ServiceOptions): Notifications {
  const parts: Parts = { ...options, channels: channelsOf(options.settings) };
  const { settings, store } = options;
  return {
    settings: async (): Promise<NotificationSettings> => ({
      enabled: true,
      channels: parts.channels,
      webPushPublicKey: settings.vapid?.publicKey ?? null,
      pollIntervalSeconds: Math.max(1, Math.round(settings.pollIntervalMs / 1000)),
      maxTargets: settings.targetsPerCustomer,
    }),
    targets: async (customerId) => (await store.get(customerId))?.targets.map(targetParent) ?? [],
    add: (caller, target, refreshToken) => add(parts, caller, target, refreshToken),
    remove: (customerId, targetId) => remove(parts, customerId, targetId),
    sendTest: (customerId, targetId) => sendTest(parts, customerId, targetId),
  };
}
