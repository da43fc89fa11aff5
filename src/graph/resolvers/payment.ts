// Payment: a payment made on an order.
import type { PaymentResolvers } from '../__generated__/resolvers-types.js';
import { requiredMoney } from './mapping.js';

// `status` is the upstream's, as it is: its enum maps it (an unlisted value is UNKNOWN: enums.ts).
// `feeType` too: Order.payments keeps only the payments of the fee type that was asked for.

export const Payment: PaymentResolvers = {
  amount: ({ amount, currencyCode }) => requiredMoney(amount, currencyCode),
  method: ({ paymentMethod }) => paymentMethod ?? null,
};
