// Which Order or Customer field takes which upstream call, as the contract table declares it
// (each operation's `orderFields`, `customerFields`): the table the resolvers load through. The
// SDK imports this file, so it imports nothing of the gateway but the contract, which imports nothing.
import {
  CONTRACT,
  CUSTOMER_LEVEL_OPERATIONS,
  OPERATION_NAMES,
  operationSpec,
  PER_ORDER_OPERATIONS,
  type OperationName,
  type OrderStage,
  type PerOrderOperation,
} from '../upstream/contract.js';

export { PER_ORDER_OPERATIONS };

/** A GraphQL field an upstream call backs, as the declaration says: `Order.` per order, `Customer.` once for the caller. */
export interface DeclaredField {
  type: 'Order' | 'Customer';
  field: string;
  operation: OperationName;
  /** The call's `x-active-from`: before it, a per-order field is null with no error. */
  activeFrom?: OrderStage;
}

/**
 * Every field an upstream call backs, in the table's order (per operation, its fields in
 * their order): what the schema build checks and describes (sdl.ts) and the resolvers and
 * loaders are made from.
 */
export const DECLARED_FIELDS: readonly DeclaredField[] = OPERATION_NAMES.flatMap((operation) => {
  const { orderFields = [], customerFields = [], activeFrom } = operationSpec(operation);
  return [
    ...orderFields.map((field): DeclaredField => ({ type: 'Order', field, operation, ...(activeFrom && { activeFrom }) })),
    ...customerFields.map((field): DeclaredField => ({ type: 'Customer', field, operation })),
  ];
});

/** The customer-level calls: those that back Customer fields, made once per request for the caller. */
export const CUSTOMER_FIELD_OPERATIONS: Readonly<Record<string, OperationName>> = Object.fromEntries(
  DECLARED_FIELDS.filter(({ type }) => type === 'Customer').map(({ field, operation }) => [field, operation]),
);

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

/**
 * The operations a whole order makes once for the customer, whatever its orders: the customer,
 * the order list and each customer-level call.
 */
export const CUSTOMER_OPERATIONS: readonly OperationName[] = ['customerDetails', 'orderDetails', ...CUSTOMER_LEVEL_OPERATIONS];

/**
 * The upstream calls of a whole order (the customer and every per-order field) of this many
 * orders: each customer operation once, each per-order operation once per order. Tests, the
 * budget's default and the benchmark count with it.
 */
export const wholeOrderCalls = (orders: number) => CUSTOMER_OPERATIONS.length + PER_ORDER_OPERATIONS.length * orders;
