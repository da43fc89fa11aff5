// The whole order as a test asks for it, built from the field table: a query that makes every per-order call, whatever the calls are.
import { ORDER_FIELD_OPERATIONS } from '../../src/graph/order-fields.js';

/** Order fields that each take a call, each asking only for its `__typename`: the least that makes its call. */
export const leastSelection = (fields: readonly string[]) => fields.map((field) => `${field} { __typename }`).join(' ');

/** Every per-order field of Order, with the least that makes its call. */
export const PER_ORDER_FIELDS = leastSelection(Object.keys(ORDER_FIELD_OPERATIONS));

/**
 * The customer and a page of its orders (the default page without `first`), each with every
 * per-order field, and with `more` of each order where a test reads it.
 */
export const wholeOrders = (first?: number, more = '') =>
  `{ me { id orderCount orders${first === undefined ? '' : `(first: ${first})`} { id ${PER_ORDER_FIELDS} ${more} } } }`;
