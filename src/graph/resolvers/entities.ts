// Entity references (SUBGRAPH=on): another subgraph names an order or a customer by id, and
// the caller's own record answers it; any other id is null and costs no per-order call.
import type { GraphQLResolveInfo } from 'graphql';
import type { Order, User } from '../../upstream/models.js';
import type { GraphQLContext } from '../context.js';
import { CALLER } from '../loaders.js';

type Reference = { id: string };

export const entityResolvers = {
  Order: {
    __resolveReference: async ({ id }: Reference, { loaders }: GraphQLContext, info: GraphQLResolveInfo): Promise<Order | null> =>
      (await loaders.orders.load(CALLER, info)).find((order) => order.id === id) ?? null,
  },
  Customer: {
    __resolveReference: async ({ id }: Reference, { loaders }: GraphQLContext, info: GraphQLResolveInfo): Promise<User | null> => {
      const customer = await loaders.customer.load(CALLER, info);
      return customer.id === id ? customer : null;
    },
  },
};
