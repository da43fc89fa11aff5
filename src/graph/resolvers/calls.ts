// The fields an upstream call backs, built from the declaration (order-fields.ts): Order's per
// order, Customer's once for the caller. A field needs no resolver of its own unless it maps
// the answer (Order's MAPPINGS).
import type { GraphQLResolveInfo } from 'graphql';
import { callParams, isPerOrder, type OperationName } from '../../upstream/contract.js';
import type { Order } from '../../upstream/models.js';
import type { GraphQLContext } from '../context.js';
import type { FieldCall } from '../loaders.js';
import { CUSTOMER_FIELD_OPERATIONS } from '../order-fields.js';

/**
 * A field's call through the request's loader of field calls, with the parameters the
 * declaration says: from the order for a per-order call (never from the client), from the
 * field's arguments otherwise. Null when the call found nothing; a failed call is this
 * field's error alone.
 */
export function loadCall(
  operation: OperationName,
  order: Order | null,
  args: Record<string, unknown>,
  { loaders }: GraphQLContext,
  info: GraphQLResolveInfo,
): Promise<unknown> {
  // Only the calls that back fields reach here (order-fields.ts): the declaration's.
  return loaders.fieldCalls.load({ operation: operation as FieldCall['operation'], params: callParams(operation, order, args) }, info);
}

/**
 * Customer's fields that calls back, each its call's answer as it is; refused when the schema
 * is built, not at a first call, when a call takes a parameter from an order (a customer has none).
 */
export function customerCallFields(fields: Readonly<Record<string, OperationName>> = CUSTOMER_FIELD_OPERATIONS) {
  return Object.fromEntries(
    Object.entries(fields).map(([field, operation]) => {
      if (isPerOrder(operation))
        throw new Error(`Customer.${field}: ${operation} takes a parameter from an order, and a customer has none`);
      const resolve = (_customer: unknown, args: Record<string, unknown>, context: GraphQLContext, info: GraphQLResolveInfo) =>
        loadCall(operation, null, args, context, info);
      return [field, resolve];
    }),
  );
}
