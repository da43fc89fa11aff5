// Whose orders an order list holds: the customer id the upstream's own records carry. The
// upstream answers the list for the caller's token, so it names the caller as the upstream
// knows it: the order history is kept under it, and the caller limits count the token as it.
import type { Order } from '../upstream/models.js';

/** The longest customer id kept under: it names a key in memory and in Redis. */
export const MAX_CUSTOMER_ID_CHARS = 256;

/** The customer an order belongs to, as the upstream's own record says (the contract requires it; a record without a usable one has no history). */
export const customerIdOf = ({ userId }: Order): string | null =>
  typeof userId === 'string' && userId !== '' && userId.length <= MAX_CUSTOMER_ID_CHARS ? userId : null;

/** The customer whose orders a list holds: the one userId they all carry, else none (nothing is recorded). */
export function customerOf(orders: readonly Order[]): string | null {
  const ids = new Set(orders.map(customerIdOf));
  const [only] = ids;
  return ids.size === 1 && only != null ? only : null;
}
