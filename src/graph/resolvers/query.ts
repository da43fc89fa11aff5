// Query: the caller (me), their orders, one order by id.
import { Kind, responsePathAsArray, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import type { QueryResolvers } from '../__generated__/resolvers-types.js';
import { CALLER } from '../loaders.js';
import { ordersPage } from './order.js';

/** Whether the field being resolved selects `name` directly, through fragments included. */
export function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  const visit = (set: SelectionSetNode | undefined): boolean =>
    !!set?.selections.some((selection) => {
      switch (selection.kind) {
        case Kind.FIELD:
          return selection.name.value === name;
        case Kind.INLINE_FRAGMENT:
          return visit(selection.selectionSet);
        case Kind.FRAGMENT_SPREAD:
          return visit(info.fragments[selection.name.value]?.selectionSet);
      }
    });
  return info.fieldNodes.some((node) => visit(node.selectionSet));
}

export const Query: QueryResolvers = {
  me: (_parent, _args, { loaders }, info) => {
    // graphql-js resolves `me.orders` only once `me` has resolved; starting the order list
    // now keeps the whole-order query at two upstream waves instead of three. It is asked
    // for on behalf of that field.
    if (selectsField(info, 'orders')) {
      const path = `${responsePathAsArray(info.path).join('.')}.orders`;
      loaders.orderDetails.load(CALLER, { type: 'Customer', field: 'orders', path }).catch(() => undefined);
    }
    return loaders.customerDetails.load(CALLER, info);
  },
  orders: ordersPage,
  // Only ids from the caller's own list ever reach the per-order calls.
  order: async (_parent, { id }, { loaders }, info) =>
    (await loaders.orderDetails.load(CALLER, info)).find((order) => order.id === id) ?? null,
};
