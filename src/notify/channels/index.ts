// The senders of the three channels, made once from the settings: what the delivery calls with
// a target's opened address and a message. A channel the settings leave unconfigured still has
// a sender, one that fails every message for good (the graph refuses such targets anyway).
import { DeliveryError, type Channel, type Sender } from '../contracts.js';
import { guardedDispatcher, type AddressPolicy, type GuardedRoute, type Resolve } from '../safe-address.js';
import { emailSender } from './email.js';
import { webPushSender } from './web-push.js';
import { webhookSender } from './webhook.js';

export interface SenderSettings {
  /** VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY (base64url) and VAPID_SUBJECT (mailto: or https:); null: no Web Push. */
  vapid: { publicKey: string; privateKey: string; subject: string } | null;
  /** SMTP_URL (smtp:// or smtps://, credentials in it); null: `printMail`, or no e-mail without it. */
  smtpUrl: string | null;
  /** Without SMTP_URL, the demo's printed mail: each message as text, given to it (stdout, a logger). */
  printMail: ((text: string) => void) | null;
  /** NOTIFY_EMAIL_FROM. */
  emailFrom: string;
  /** NOTIFY_WEBHOOK_TIMEOUT_MS: the whole of one HTTP attempt (webhook or push), connecting included. */
  webhookTimeoutMs: number;
  /** NOTIFY_ALLOW_PRIVATE_ADDRESSES: http and private addresses allowed (the demo, tests; never production). */
  allowPrivateAddresses: boolean;
  /** How names are resolved: dns.lookup unless given (a test answers for a name). */
  resolve?: Resolve;
}

/** One sender per channel, and `close()` for the connections they keep. */
export interface Senders extends Record<Channel, Sender> {
  close(): Promise<void>;
}

/** The senders of every channel; the HTTP ones share one guarded dispatcher. */
export function createSenders(settings: SenderSettings): Senders {
  const policy: AddressPolicy = { allowPrivateAddresses: settings.allowPrivateAddresses, resolve: settings.resolve };
  const dispatcher = guardedDispatcher(policy);
  const route: GuardedRoute = { dispatcher, policy, timeoutMs: settings.webhookTimeoutMs };
  return {
    WEB_PUSH: settings.vapid ? webPushSender(route, settings.vapid) : unconfigured('Web Push (no VAPID keys)'),
    EMAIL: emailSender(settings) ?? unconfigured('E-mail (no SMTP_URL)'),
    WEBHOOK: webhookSender(route),
    close: () => dispatcher.close(),
  };
}

const unconfigured =
  (what: string): Sender =>
  () =>
    Promise.reject(new DeliveryError(`${what} is not configured on this gateway`, true));
