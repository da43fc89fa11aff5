// Order: fields read from the order record, the per-order calls of order-fields.ts, the orders page.
import type { GraphQLResolveInfo } from 'graphql';
import type { OrderResolvers, OrderStatus } from '../__generated__/resolvers-types.js';
import { BadUserInputError } from '../../errors.js';
import { canHaveValue, ORDER_STATUSES, type OrderStage } from '../../upstream/contract.js';
import type { Address, Order as OrderModel } from '../../upstream/models.js';
import type { PerOrderResponse } from '../../upstream/operations.js';
import { readable } from '../../upstream/shapes.js';
import type { GraphQLContext } from '../context.js';
import { CALLER } from '../loaders.js';
import { AVAILABLE_FROM, ORDER_FIELD_OPERATIONS } from '../order-fields.js';
import { loadCall } from './calls.js';
import { toDateTime, toEnum } from './mapping.js';
import { toAddress } from './address.js';
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
export async function ordersPage(
  _parent: unknown,
  { first, after }: { first: number; after?: string | null },
  { loaders }: GraphQLContext,
  info: GraphQLResolveInfo,
): Promise<OrderModel[]> {
  const orders = await loaders.orderDetails.load(CALLER, info);
  if (!Number.isInteger(first) || first < 0 || first > MAX_PAGE) throw new BadUserInputError(`first must be from 0 to ${MAX_PAGE}.`);
  const start = after == null ? 0 : orders.findIndex((order) => order.id === after) + 1;
  if (start === 0 && after != null) throw new BadUserInputError('after must be the id of one of your orders.');
  return orders.slice(start, start + first);
}

/** The shipping address among an order's addresses: DELIVERY, the primary one first. */
export function pickShippingAddress(addresses: readonly Address[]): Address | null {
  const delivery = addresses.filter((address) => readable(address.addressType)?.toUpperCase() === 'DELIVERY');
  return delivery.find((address) => readable(address.primary) === true) ?? delivery[0] ?? null;
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
  delivered: ({ vehicleDelivered }: OrderModel) => readable(vehicleDelivered) === true,
} satisfies OrderResolvers;

/** The stage-bound fields and their stages, in the table's order: what `availability` lists. */
const STAGE_BOUND = Object.entries(AVAILABLE_FROM) as Array<[keyof typeof AVAILABLE_FROM, OrderStage]>;

type FieldOperations = typeof ORDER_FIELD_OPERATIONS;
type PerOrderField = keyof FieldOperations;
type FieldResolver<F extends keyof OrderResolvers> = Extract<NonNullable<OrderResolvers[F]>, (...args: never[]) => unknown>;
type FieldValue<F extends PerOrderField> = NonNullable<Awaited<ReturnType<FieldResolver<F>>>>;
type CallResult<F extends PerOrderField> = PerOrderResponse<FieldOperations[F]>;

/** What a per-order field makes of its call's answer, when not the answer as it is. */
type Mapping<F extends PerOrderField> = (
  answer: CallResult<F>,
  order: OrderModel,
  args: Parameters<FieldResolver<F>>[1],
) => FieldValue<F> | null;

const MAPPINGS = {
  shippingAddress: (addresses) => {
    const picked = pickShippingAddress(addresses);
    return picked && toAddress(picked);
  },
  addresses: (addresses) => addresses.map(toAddress),
  payments: (payments, _order, { feeType }) => payments.filter((payment) => payment.feeType === feeType),
  tradeIn: (tradeIn, order) => withCurrency(tradeIn, order),
} satisfies { [F in PerOrderField]?: Mapping<F> };

// A field with no mapping answers its call's model as it is: the compiler holds it to the field's
// type, an enum's values as the strings the upstream sends (open enums map them, enums.ts).
type Unmapped = Exclude<PerOrderField, keyof typeof MAPPINGS>;
type EnumsAsStrings<T> = T extends string
  ? string
  : T extends (infer I)[]
    ? EnumsAsStrings<I>[]
    : T extends object
      ? { [K in keyof T]: EnumsAsStrings<T[K]> }
      : T;
type Holds<T extends true> = T;
type _UnmappedResponsesFit = Holds<{ [F in Unmapped]: CallResult<F> extends EnumsAsStrings<FieldValue<F>> ? true : false }[Unmapped]>;

/** A per-order field's resolver: its call (order-fields.ts) as `loadCall` makes it; the answer as the field's mapping makes it. */
function perOrderField<F extends PerOrderField>(field: F): FieldResolver<F> {
  const operation = ORDER_FIELD_OPERATIONS[field];
  const map = (MAPPINGS as { [F in PerOrderField]?: Mapping<F> })[field] as Mapping<PerOrderField> | undefined;
  // Not async: the load's own promise is the value of a field that answers the call as it is.
  const resolve = (order: OrderModel, args: Record<string, unknown>, context: GraphQLContext, info: GraphQLResolveInfo) => {
    const answer = loadCall(operation, order, args, context, info) as Promise<CallResult<PerOrderField> | null>;
    return map ? answer.then((value) => (value === null ? null : map(value as never, order, args as never))) : answer;
  };
  return resolve as unknown as FieldResolver<F>;
}

// Of the record's fields, the date-times are read as they are (index.ts): only these map.
const { status, rawStatus, buildEditableUntil, delivered } = ORDER_RECORD_FIELDS;

export const Order: OrderResolvers = {
  status,
  rawStatus,
  buildEditableUntil,
  delivered,
  // Read from the status as `status` maps it, so the two always agree (UNKNOWN: every part can come).
  availability: (order) => {
    const stage = status(order);
    return STAGE_BOUND.map(([field, from]) => ({
      part: field.toUpperCase() as Uppercase<typeof field>,
      from,
      available: canHaveValue(stage, from),
    }));
  },
  // From the kept history alone: no upstream call. The order came from the caller's own list,
  // and its history is read under the customer id the upstream's record of it carries.
  history: async (order, { first, after }, { history, historyRecorded }) => {
    // This request's own reading of the list is in the history first (its first event included).
    await historyRecorded();
    return history.events(order, first, after);
  },

  ...(Object.fromEntries(Object.keys(ORDER_FIELD_OPERATIONS).map((field) => [field, perOrderField(field as PerOrderField)])) as {
    [F in PerOrderField]: FieldResolver<F>;
  }),
};
