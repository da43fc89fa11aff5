// Web Push: the message encrypted for the browser's subscription (RFC 8291, aes128gcm) and
// signed with the gateway's VAPID key (RFC 8292) by the web-push library, then sent through
// the guarded dispatcher (safe-address.ts), so a push endpoint is held to the webhook's rules:
// public addresses only, no redirect, one timer, the answer's body capped.
import { createHash } from 'node:crypto';
import webPush from 'web-push';
import type { Message, Sender } from '../contracts.js';
import { DeliveryError } from '../contracts.js';
import { postGuarded, type GuardedRoute } from '../safe-address.js';

/** How long the push service keeps a message for a browser that is offline: a day (older news is stale; the tracker has it). */
export const PUSH_TTL_SECONDS = 24 * 60 * 60;

/** The most the payload's text may be: push services take 4,096 bytes encrypted, 3,993 of them plaintext; the body is cut to fit. */
export const PUSH_PAYLOAD_BYTES = 3_900;

/** The push service's priority for each kind of message (RFC 8030 Urgency). */
const URGENCY: Record<Message['kind'], webPush.Urgency> = { change: 'normal', test: 'high', disabled: 'normal', ended: 'normal' };

/**
 * The RFC 8030 Topic from the message's key: at most 32 URL-safe base64 characters, the same
 * for the same key, so a push service holding an undelivered copy replaces it rather than
 * showing the message twice.
 */
export const pushTopic = (key: string) => createHash('sha256').update(key).digest('base64url').slice(0, 32);

/** The payload the service worker reads: {title, body, url, key}, the body cut so the whole fits PUSH_PAYLOAD_BYTES. */
export function pushPayload({ title, body, url, key }: Message): string {
  const text = (shown: string) => JSON.stringify({ title, body: shown, url, key });
  let shown = body;
  while (Buffer.byteLength(text(shown)) > PUSH_PAYLOAD_BYTES && shown !== '')
    shown = shown.length > 2 ? `${shown.slice(0, Math.floor(shown.length * 0.9) - 1)}…` : '';
  return text(shown);
}

export function webPushSender(route: GuardedRoute, vapid: { publicKey: string; privateKey: string; subject: string }): Sender {
  return async (address, message) => {
    if (address.channel !== 'WEB_PUSH') throw new DeliveryError(`a ${address.channel} address given to Web Push`, true);
    let details: webPush.RequestDetails;
    try {
      details = webPush.generateRequestDetails({ endpoint: address.endpoint, keys: address.keys }, pushPayload(message), {
        vapidDetails: vapid,
        TTL: PUSH_TTL_SECONDS,
        contentEncoding: 'aes128gcm',
        topic: pushTopic(message.key),
        urgency: URGENCY[message.kind],
      });
    } catch (error) {
      // A subscription whose keys or endpoint the library cannot use stays unusable.
      throw new DeliveryError(`the push subscription cannot be used: ${(error as Error).message}`, true);
    }
    const headers = Object.fromEntries(Object.entries(details.headers).map(([name, value]) => [name, String(value)]));
    await postGuarded(route, details.endpoint, { headers, body: details.body ?? Buffer.alloc(0), what: 'the push service' });
  };
}
