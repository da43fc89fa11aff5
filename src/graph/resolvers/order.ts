import type { GraphQLResolveInfo } from 'graphql';
import type { OrderResolvers, OrderStatus } from '../__generated__/resolvers-types.js';
import { BadUserInputError } from '../../errors.js';
import { ORDER_STATUSES } from '../../upstream/contract.js';
import type { Address, Order as OrderModel } from '../../upstream/models.js';
import type { GraphQLContext } from '../context.js';
import { CALLER } from '../loaders.js';
import { toDateTime, toEnum } from './mapping.js';
import { withCurrency } from './trade-in.js';

// Every status the contract names is an OrderStatus value; anything else becomes UNKNOWN.
const KNOWN_STATUSES: readonly Exclude<OrderStatus, 'UNKNOWN'>[] = ORDER_STATUSES;

/** The most orders one page may hold: a page bounds what a query fans out to. */
const MAX_PAGE = 100;

/**
 * Query.orders and Customer.orders (a customer is only ever the caller): `first` of the
 * caller's orders, after the order `after` when given. The list is loaded before the page is
 * checked: when the list cannot be read, that failure is the field's error, not the page's.
 */
export async function ordersPage(_parent: unknown, { first, after }: { first: number; after?: string | null }, { loaders }: GraphQLContext, info: GraphQLResolveInfo): Promise<OrderModel[]> {
  const orders = await loaders.orders.load(CALLER, info);
  if (!Number.isInteger(first) || first < 0 || first > MAX_PAGE) throw new BadUserInputError(`first must be from 0 to ${MAX_PAGE}.`);
  const start = after == null ? 0 : orders.findIndex((order) => order.id === after) + 1;
  if (start === 0 && after != null) throw new BadUserInputError('after must be the id of one of your orders.');
  return orders.slice(start, start + first);
}

/** The shipping address among an order's addresses: DELIVERY, the primary one first. */
export function pickShippingAddress(addresses: readonly Address[]): Address | null {
  const delivery = addresses.filter((address) => address.addressType?.toUpperCase() === 'DELIVERY');
  return delivery.find((address) => address.primary === true) ?? delivery[0] ?? null;
}

/** The Order fields mapped from the order record itself (no upstream call): also what a live update compares. */
export const ORDER_RECORD_FIELDS = {
  status: ({ status }: OrderModel) => toEnum(status, KNOWN_STATUSES),
  rawStatus: ({ status }: OrderModel) => status,
  createdAt: ({ createdAt }: OrderModel) => toDateTime(createdAt),
  updatedAt: ({ updatedAt }: OrderModel) => toDateTime(updatedAt),
  cancelledAt: ({ cancelledAt }: OrderModel) => toDateTime(cancelledAt),
  completedAt: ({ completedAt }: OrderModel) => toDateTime(completedAt),
  buildEditableUntil: ({ editBuildExpirationDate }: OrderModel) => toDateTime(editBuildExpirationDate),
  delivered: ({ vehicleDelivered }: OrderModel) => vehicleDelivered === true,
} satisfies OrderResolvers;

export const Order: OrderResolvers = {
  ...ORDER_RECORD_FIELDS,
  product: ({ product }) => product ?? null,
  configuration: ({ configuration }) => configuration ?? null,

  vehicle: ({ id, reservationId }, _args, { loaders }, info) => loaders.vehicle.load({ orderId: id, reservationId }, info),
  pickup: ({ id }, _args, { loaders }, info) => loaders.pickup.load(id, info),
  estimate: ({ id }, _args, { loaders }, info) => loaders.estimate.load(id, info),
  addresses: ({ id }, _args, { loaders }, info) => loaders.addresses.load(id, info),
  shippingAddress: async ({ id }, _args, { loaders }, info) => {
    const addresses = await loaders.addresses.load(id, info);
    return addresses && pickShippingAddress(addresses);
  },
  payments: async ({ id }, { feeType }, { loaders }, info) => {
    const payments = await loaders.payments.load({ orderId: id, feeType }, info);
    return payments && payments.filter((payment) => payment.feeType === feeType);
  },
  tradeIn: async (order, _args, { loaders }, info) => {
    const tradeIn = await loaders.tradeIn.load(order.reservationId, info);
    return tradeIn && withCurrency(tradeIn, order);
  },
};

