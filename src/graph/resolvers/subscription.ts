// Subscription.orderUpdates: a caller's live order stream, from the orders hub (src/live/).
import type { SubscriptionResolvers } from '../__generated__/resolvers-types.js';
import { missingTokenError } from '../../errors.js';
import { addressKey } from '../../upstream/scope.js';
import type { LiveItem } from '../context.js';

export const Subscription: SubscriptionResolvers = {
  orderUpdates: {
    // The caller joins its customer's poll only once the upstream has accepted its own token
    // (the gateway only decodes JWTs: a forged `sub` must never see another customer's orders).
    subscribe: async (_root, { orderId }, { operations, scope: { auth, clientAddress }, live }) => {
      const checkedAt = Date.now();
      const customer = await operations.customerDetails();
      if (!auth.token) throw missingTokenError();
      return live.watch({
        customerId: customer.id,
        token: auth.token,
        expiresAt: auth.expiresAt,
        address: addressKey(clientAddress),
        orderId: orderId ?? null,
        confirmedAt: checkedAt,
      });
    },
    // Each event is resolved in a context of its own (GraphQLContext.forEvent): its other
    // fields (vehicle, pickup, …) are fetched within its poll's budget, shared with the
    // customer's other streams, or for the first state within the subscribing request's own.
    resolve: (payload: unknown) => {
      const item = payload as LiveItem;
      if ('error' in item) throw item.error;
      return item.update;
    },
  },
};
