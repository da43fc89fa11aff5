/**
 * What the benchmark's peers take from the gateway's declarations of its upstream calls, in
 * one place: the Apollo peer's per-order resolvers (bench/peers/apollo/) and Tailcall's
 * configuration (bench/tailcall.ts) are built from it. Which Order field takes which per-order
 * call and the calls of a whole order come from src/graph/order-fields.ts; each call's host,
 * path, parameters (and where each comes from) and stage from the contract. A per-order
 * operation added there reaches both peers from here (its response's model too: the contract row
 * names it); the Apollo peer needs a mapping only should its field not be the call's model as it is.
 */
import { CUSTOMER_FIELD_OPERATIONS, CUSTOMER_OPERATIONS, ORDER_FIELD_OPERATIONS, PER_ORDER_OPERATIONS } from '../src/graph/order-fields.js';
import {
  canHaveValue,
  CONTRACT,
  operationSpec,
  callParams,
  paramValues,
  queryParamNames,
  type HostName,
  type OperationName,
  type OrderStage,
  type ParamSource,
} from '../src/upstream/contract.js';

export { callParams };

export type PerOrderField = keyof typeof ORDER_FIELD_OPERATIONS;
export type PerOrderOperation = (typeof ORDER_FIELD_OPERATIONS)[PerOrderField];
export type CustomerOperation = (typeof CUSTOMER_OPERATIONS)[number];

/** Each Order field that takes a per-order call, with that call (two fields may share one). */
export const PER_ORDER_FIELDS = Object.entries(ORDER_FIELD_OPERATIONS) as [PerOrderField, PerOrderOperation][];

/** Each Customer field a customer-level call backs, with that call. */
export const CUSTOMER_FIELDS = Object.entries(CUSTOMER_FIELD_OPERATIONS);

/** The call that serves a per-order Order field. */
export const callOf = (field: PerOrderField): PerOrderOperation => ORDER_FIELD_OPERATIONS[field];

/** A whole order's calls: each customer call once, each per-order call once per order (`wholeOrderCalls`). */
export const CUSTOMER_CALLS: readonly CustomerOperation[] = CUSTOMER_OPERATIONS;
export const PER_ORDER_CALLS: readonly PerOrderOperation[] = PER_ORDER_OPERATIONS;

/** The upstream host a call goes to. */
export const hostOf = (operation: OperationName): HostName => CONTRACT[operation].host;

/** The arguments of the field a call backs that the call takes parameters from, in the contract's order, each with whether it is required. */
export const callArguments = (operation: OperationName): { name: string; required: boolean }[] =>
  Object.values(operationSpec(operation).params ?? {}).flatMap((source) =>
    'argument' in source ? [{ name: source.argument, required: source.required }] : [],
  );

/**
 * A call as a template: its host, its path with each path parameter as `valueOf` writes its
 * source, and its query parameters in the contract's order, each likewise, with whether it is
 * required (an optional one is left out when empty).
 */
export function callTemplate(operation: OperationName, valueOf: (source: ParamSource) => string) {
  const values = paramValues(operation, valueOf);
  const params = operationSpec(operation).params ?? {};
  return {
    host: hostOf(operation),
    method: CONTRACT[operation].method,
    path: CONTRACT[operation].path.replace(/\{(\w+)\}/g, (_, name: string) => values[name]!),
    query: queryParamNames(operation).map((name) => ({ key: name, value: values[name]!, required: params[name]!.required })),
  };
}

/**
 * The parts of an order that come at a stage (Order.availability): each per-order field whose
 * call answers from a stage on, with whether it can have a value for an order in `status`.
 */
export const STAGE_BOUND = PER_ORDER_FIELDS.flatMap(([field, operation]) => {
  const { activeFrom } = CONTRACT[operation] as { activeFrom?: OrderStage };
  return activeFrom
    ? [{ part: field.toUpperCase(), from: activeFrom, available: (status: string) => canHaveValue(status, activeFrom) }]
    : [];
});
