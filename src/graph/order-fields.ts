// Which Order field takes which upstream call, as the contract table declares it (each per-order
// operation's `orderFields`): the table the Order resolvers load through. The SDK imports this
// file, so it imports nothing of the gateway but the contract, which imports nothing.
import { CONTRACT, PER_ORDER_OPERATIONS, type OperationName, type OrderStage, type PerOrderOperation } from '../upstream/contract.js';

export { PER_ORDER_OPERATIONS };

type Contract = typeof CONTRACT;
/** The Order fields each per-order operation backs. */
type FieldsOf<O extends PerOrderOperation> = Contract[O] extends { orderFields: readonly (infer F extends string)[] } ? F : never;
type OrderField = { [O in PerOrderOperation]: FieldsOf<O> }[PerOrderOperation];
type FieldOperations = { [F in OrderField]: { [O in PerOrderOperation]: F extends FieldsOf<O> ? O : never }[PerOrderOperation] };

/**
 * The Order fields that each take a per-order upstream call, with the operation that serves
 * them, in the table's order: the Order resolvers are built from it, each given that
 * operation's loader (resolvers/order.ts); a failure of the operation nulls the field; and
 * (through the contract's `x-active-from`) it says from which stage the field can have a value.
 */
export const ORDER_FIELD_OPERATIONS = Object.fromEntries(
  PER_ORDER_OPERATIONS.flatMap((operation) => (CONTRACT[operation].orderFields as readonly string[]).map((field) => [field, operation])),
) as FieldOperations;

type StageBound = {
  [F in keyof FieldOperations as Contract[FieldOperations[F]] extends { activeFrom: OrderStage } ? F : never]: OrderStage;
};

/** The stage from which the upstream answers each stage-bound Order field (earlier: null, no error; `Order.availability`). */
export const AVAILABLE_FROM = Object.fromEntries(
  Object.entries(ORDER_FIELD_OPERATIONS).flatMap(([field, operation]) => {
    const { activeFrom } = CONTRACT[operation] as { activeFrom?: OrderStage };
    return activeFrom ? [[field, activeFrom]] : [];
  }),
) as StageBound;

/** The operations a whole order makes once for the customer, whatever its orders: the customer and the order list. */
export const CUSTOMER_OPERATIONS = ['customerDetails', 'orderDetails'] as const satisfies readonly OperationName[];

/**
 * The upstream calls of a whole order (the customer and every per-order field) of this many
 * orders: each customer operation once, each per-order operation once per order. Tests, the
 * budget's default and the benchmark count with it.
 */
export const wholeOrderCalls = (orders: number) => CUSTOMER_OPERATIONS.length + PER_ORDER_OPERATIONS.length * orders;
