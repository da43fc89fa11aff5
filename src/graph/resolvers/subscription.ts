// Subscription.orderUpdates: a caller's live order stream, from the orders hub (src/live/).
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
      // The event's other fields (vehicle, pickup, …) are fetched within its poll's budget,
      // shared with the customer's other streams, or for the first state within the
      // subscribing request's own: never a fresh budget per event. (The context resolvers get
      // is yoga's, made from ours: the event's loaders go on it.)
      Object.assign(context, context.liveEvent(item.budget));
      return item.update;
    },
  },
};

export const OrderUpdate: OrderUpdateResolvers = {};
