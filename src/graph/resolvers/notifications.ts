// Notifications: the gateway's settings, the caller's targets, and adding, removing and testing
// them. The caller is who the upstream says its token belongs to (customerDetails), never what
// the request claims; a refresh token handed over is proven by renewing with it at once.
import type { GraphQLResolveInfo } from 'graphql';
import type { MutationResolvers, NotificationsResolvers, QueryResolvers } from '../__generated__/resolvers-types.js';
import type { GraphQLContext, NewNotificationTarget, NotificationCaller } from '../context.js';
import { CALLER } from '../loaders.js';

/** The caller's customer id, from the upstream's customerDetails for its token (shared with `me` in the same request). */
const customerId = async ({ loaders }: GraphQLContext, info: GraphQLResolveInfo) => (await loaders.customerDetails.load(CALLER, info)).id;

function caller({ loaders, operations, throttleRefresh }: GraphQLContext, info: GraphQLResolveInfo): NotificationCaller {
  return {
    customer: () => loaders.customerDetails.load(CALLER, info),
    renew: (refreshToken) => throttleRefresh(refreshToken, () => operations.refreshTokens(refreshToken)),
  };
}

const add = (context: GraphQLContext, info: GraphQLResolveInfo, target: NewNotificationTarget, refreshToken: string | null | undefined) =>
  context.notifications.add(caller(context, info), target, refreshToken ?? null);

export const NotificationsQuery: Pick<QueryResolvers, 'notifications'> = {
  notifications: (_parent, _args, { notifications }) => notifications.settings(),
};

export const Notifications: NotificationsResolvers = {
  // Only a gateway with notifications on asks the upstream who the caller is.
  targets: async ({ enabled }, _args, context, info) => (enabled ? context.notifications.targets(await customerId(context, info)) : []),
};

export const NotificationsMutation: Pick<
  MutationResolvers,
  'addWebPushTarget' | 'addEmailTarget' | 'addWebhookTarget' | 'removeNotificationTarget' | 'sendTestNotification'
> = {
  addWebPushTarget: async (_parent, { subscription, refreshToken }, context, info) =>
    (await add(context, info, { channel: 'WEB_PUSH', ...subscription }, refreshToken)).target,
  addEmailTarget: async (_parent, { refreshToken }, context, info) => (await add(context, info, { channel: 'EMAIL' }, refreshToken)).target,
  addWebhookTarget: async (_parent, { url, refreshToken }, context, info) => {
    const { target, secret } = await add(context, info, { channel: 'WEBHOOK', url }, refreshToken);
    return { target, secret: secret! };
  },
  removeNotificationTarget: async (_parent, { id }, context, info) => context.notifications.remove(await customerId(context, info), id),
  sendTestNotification: async (_parent, { id }, context, info) => context.notifications.sendTest(await customerId(context, info), id),
};
