// Entity references (SUBGRAPH=on): another subgraph names an order or a customer by id, and
// the caller's own record answers it; any other id is null and costs no per-order call.
import type { GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';
import { BadUserInputError } from '../../errors.js';
import type { Order, User } from '../../upstream/models.js';
import type { GraphQLContext } from '../context.js';
import { CALLER } from '../loaders.js';

type Reference = { id: string };

export const entityResolvers = {
  Order: {
    __resolveReference: async ({ id }: Reference, { loaders }: GraphQLContext, info: GraphQLResolveInfo): Promise<Order | null> =>
      (await loaders.orderDetails.load(CALLER, info)).find((order) => order.id === id) ?? null,
  },
  Customer: {
    __resolveReference: async ({ id }: Reference, { loaders }: GraphQLContext, info: GraphQLResolveInfo): Promise<User | null> => {
      const customer = await loaders.customerDetails.load(CALLER, info);
      return customer.id === id ? customer : null;
    },
  },
};

/** What `_entities` may be asked for: an object naming one of the entity types above by `__typename`. */
function isReference(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, '__typename')) return false;
  const { __typename } = value as { __typename: unknown };
  return typeof __typename === 'string' && Object.hasOwn(entityResolvers, __typename);
}

/**
 * `_entities` as @apollo/subgraph resolves it, after the representations are checked: any
 * other `__typename` (`Nope`, `__proto__`, none) or a representation that is not an object is
 * the caller's error, BAD_USER_INPUT, where the library would throw a bare Error (a masked
 * INTERNAL_SERVER_ERROR, logged as a bug).
 */
export function checkedEntities<S, C>(resolve: GraphQLFieldResolver<S, C>): GraphQLFieldResolver<S, C> {
  return (source, args, context, info) => {
    const { representations } = args as { representations?: unknown };
    if (!Array.isArray(representations) || !representations.every(isReference)) {
      throw new BadUserInputError(
        `Each representation must be an object whose __typename is one of ${Object.keys(entityResolvers).join(', ')}, with its key fields.`,
      );
    }
    return resolve(source, args, context, info);
  };
}
