// Which Order field takes which upstream call: the table the Order resolvers load through.
import { CONTRACT, type OperationName, type OrderStage } from '../upstream/contract.js';

/**
 * The Order fields that each take a per-order upstream call, with the operation that serves
 * them: the Order resolvers are built from it, each given that operation's loader
 * (resolvers/order.ts); a failure of the operation nulls the field; and (through the
 * contract's `x-active-from`) it says from which stage the field can have a value.
 */
export const ORDER_FIELD_OPERATIONS = {
  vehicle: 'vehicleProductionDetails',
  pickup: 'nearestPickupCenter',
  estimate: 'priceEstimate',
  shippingAddress: 'shippingAddresses',
  addresses: 'shippingAddresses',
  payments: 'orderPayments',
  tradeIn: 'tradeInDetails',
  // Each a per-order call of operations.ts: the Order resolvers' types hold it to that. The SDK
  // imports this table, so it imports nothing of the gateway but the contract.
} as const satisfies Record<string, OperationName>;

type FieldOperations = typeof ORDER_FIELD_OPERATIONS;
type StageBound = {
  [F in keyof FieldOperations as (typeof CONTRACT)[FieldOperations[F]] extends { activeFrom: OrderStage } ? F : never]: OrderStage;
};

/** The stage from which the upstream answers each stage-bound Order field (earlier: null, no error; `Order.availability`). */
export const AVAILABLE_FROM = Object.fromEntries(
  Object.entries(ORDER_FIELD_OPERATIONS).flatMap(([field, operation]) => {
    const { activeFrom } = CONTRACT[operation] as { activeFrom?: OrderStage };
    return activeFrom ? [[field, activeFrom]] : [];
  }),
) as StageBound;

/** The per-order operations, each once (two fields may share one: shippingAddress and addresses). */
export const PER_ORDER_OPERATIONS = [...new Set(Object.values(ORDER_FIELD_OPERATIONS))];

/** The operations a whole order makes once for the customer, whatever its orders: the customer and the order list. */
export const CUSTOMER_OPERATIONS = ['customerDetails', 'orderDetails'] as const satisfies readonly OperationName[];

/**
 * The upstream calls of a whole order (the customer and every per-order field) of this many
 * orders: each customer operation once, each per-order operation once per order. Tests, the
 * budget's default and the benchmark count with it.
 */
export const wholeOrderCalls = (orders: number) => CUSTOMER_OPERATIONS.length + PER_ORDER_OPERATIONS.length * orders;
