// Signed webhooks for home automation: the Standard Webhooks headers (webhook-id,
// webhook-timestamp, webhook-signature) signed by the standardwebhooks library with the
// target's secret, a JSON body, and the POST through the guarded dispatcher (safe-address.ts).
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Message, Sender } from '../contracts.js';
import { DeliveryError } from '../contracts.js';
import { postGuarded, type GuardedRoute } from '../safe-address.js';

/** The event type of each kind of message, as the body's `type` names it. */
export const WEBHOOK_TYPES: Record<Message['kind'], string> = {
  change: 'order.changed',
  test: 'notification.test',
  disabled: 'target.disabled',
  ended: 'notifications.ended',
};

/** A new target's secret, shown to the customer once: `whsec_` and 32 random bytes in base64, as Standard Webhooks writes them. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** The body: `{ type, timestamp, data: { orderId, title, body, url, changes } }` (orderId and changes null outside an order's change). */
export function webhookBody({ kind, occurredAt, orderId, title, body, url, changes }: Message): string {
  return JSON.stringify({
    type: WEBHOOK_TYPES[kind],
    timestamp: occurredAt,
    data: { orderId: orderId ?? null, title, body, url, changes: changes ?? null },
  });
}

export function webhookSender(route: GuardedRoute): Sender {
  return async (address, message) => {
    if (address.channel !== 'WEBHOOK') throw new DeliveryError(`a ${address.channel} address given to a webhook`, true);
    const body = webhookBody(message);
    // Signed at each attempt: a receiver refuses a timestamp minutes old, and retries come later.
    const timestamp = new Date();
    let signature: string;
    try {
      signature = new Webhook(address.secret).sign(message.key, timestamp, body);
    } catch {
      throw new DeliveryError('the webhook secret cannot be used', true);
    }
    const headers = {
      'content-type': 'application/json',
      'webhook-id': message.key,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
    await postGuarded(route, address.url, { headers, body, what: 'the webhook' });
  };
}
