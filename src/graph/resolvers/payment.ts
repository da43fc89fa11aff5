// Payment: a payment made on an order.
import type { PaymentResolvers, PaymentStatus } from '../__generated__/resolvers-types.js';
import { knownEnumValues } from '../sdl.js';
import { requiredMoney, toDateTime, toEnum } from './mapping.js';

const PAYMENT_STATUSES = knownEnumValues<PaymentStatus>('PaymentStatus');

export const Payment: PaymentResolvers = {
  // Order.payments keeps only the fee type that was asked for, and FeeType has one value.
  feeType: () => 'ORDER_FEE',
  amount: ({ amount, currencyCode }) => requiredMoney(amount, currencyCode),
  status: ({ status }) => toEnum(status, PAYMENT_STATUSES),
  method: ({ paymentMethod }) => paymentMethod ?? null,
  card: ({ card }) => card ?? null,
  refundable: ({ refundable }) => refundable ?? null,
  paidAt: ({ paidAt }) => toDateTime(paidAt),
  createdAt: ({ createdAt }) => toDateTime(createdAt),
};
