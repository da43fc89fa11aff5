import type { OrderUpdateResolvers, SubscriptionResolvers } from '../__generated__/resolvers-types.js';
import { missingTokenError } from '../../errors.js';
import type { GraphQLContext, LiveItem } from '../context.js';

export const Subscription: SubscriptionResolvers = {
  orderUpdates: {
    // The caller joins its customer's poll only once the upstream has accepted its own token
    // (the gateway only decodes JWTs: a forged `sub` must never see another customer's orders).
    subscribe: async (_root, { orderId }, { operations, auth, clientAddress, live }) => {
      const customer = await operations.customerDetails();
      if (!auth.token) throw missingTokenError();
      return live.watch({ customerId: customer.id, token: auth.token, expiresAt: auth.expiresAt, address: clientAddress, orderId: orderId ?? null });
    },
    resolve: (payload: unknown, _args: unknown, context: GraphQLContext) => {
      const item = payload as LiveItem;
      if ('error' in item) throw item.error;
      // The event's other fields (vehicle, pickup, …) are fetched afresh, under a new deadline.
      // (The context resolvers get is yoga's, made from ours: the new loaders go on it.)
      Object.assign(context, context.renewed());
      return item.update;
    },
  },
};

export const OrderUpdate: OrderUpdateResolvers = {};
