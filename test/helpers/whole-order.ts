// The whole order as a test asks for it, built from the field table: a query that makes every
// call a whole order makes (each customer-level call once, each per-order call per order),
// whatever the calls are.
import { getNamedType, isLeafType, type GraphQLObjectType } from 'graphql';
import { CUSTOMER_FIELD_OPERATIONS, ORDER_FIELD_OPERATIONS } from '../../src/graph/order-fields.js';
import { createGraphSchema } from '../../src/graph/schema.js';

const schema = createGraphSchema();

/**
 * Fields of a type that each take a call, each asking for the least that makes its call: a leaf
 * as it is, an object only its `__typename`.
 */
export const leastSelection = (fields: readonly string[], type = 'Order') => {
  const declared = (schema.getType(type) as GraphQLObjectType).getFields();
  return fields.map((field) => (isLeafType(getNamedType(declared[field]!.type)) ? field : `${field} { __typename }`)).join(' ');
};

/** Every per-order field of Order, with the least that makes its call. */
export const PER_ORDER_FIELDS = leastSelection(Object.keys(ORDER_FIELD_OPERATIONS));

/** Every Customer field a customer-level call backs, with the least that makes its call. */
export const CUSTOMER_CALL_FIELDS = leastSelection(Object.keys(CUSTOMER_FIELD_OPERATIONS), 'Customer');

/**
 * The customer (with every field a customer-level call backs) and a page of its orders (the
 * default page without `first`), each with every per-order field, and with `more` of each order
 * where a test reads it.
 */
export const wholeOrders = (first?: number, more = '') =>
  `{ me { id orderCount ${CUSTOMER_CALL_FIELDS} orders${first === undefined ? '' : `(first: ${first})`} { id ${PER_ORDER_FIELDS} ${more} } } }`;
