// Payment: a payment made on an order.
import type { PaymentResolvers } from '../__generated__/resolvers-types.js';
import { requiredMoney, toDateTime } from './mapping.js';

// `status` is the upstream's, as it is: its enum maps it (an unlisted value is UNKNOWN: enums.ts).

export const Payment: PaymentResolvers = {
  // Order.payments keeps only the fee type that was asked for, and FeeType has one value.
  feeType: () => 'ORDER_FEE',
  amount: ({ amount, currencyCode }) => requiredMoney(amount, currencyCode),
  method: ({ paymentMethod }) => paymentMethod ?? null,
  card: ({ card }) => card ?? null,
  refundable: ({ refundable }) => refundable ?? null,
  paidAt: ({ paidAt }) => toDateTime(paidAt),
  createdAt: ({ createdAt }) => toDateTime(createdAt),
};
