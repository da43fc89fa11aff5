// The resolver map the schema is built with: every type's resolvers in one object.
import type { Resolvers } from '../__generated__/resolvers-types.js';
import { Customer } from './customer.js';
import { Estimate } from './estimate.js';
import { Mutation } from './mutation.js';
import { Notifications, NotificationsMutation, NotificationsQuery } from './notifications.js';
import { Order } from './order.js';
import { Payment } from './payment.js';
import { Pickup } from './pickup.js';
import { Configuration } from './configuration.js';
import { Product } from './product.js';
import { Query } from './query.js';
import { scalarResolvers } from './scalars.js';
import { Subscription } from './subscription.js';
import { TokenSet } from './token-set.js';
import { TradeIn, TradeInVehicle } from './trade-in.js';
import { Vehicle } from './vehicle.js';

/**
 * A field whose value is its parent's property of the same name, as it is, has no resolver:
 * graphql-jit reads it in place, where a resolver is a call with its resolve info and closures,
 * for each object of each answer. So is a DateTime the upstream shape already holds to one
 * (`dateTime` in models.ts): the scalar normalises it (scalars.ts), and a value of the wrong
 * shape (an UnreadableValue) is that field's error either way.
 */
export const resolvers: Resolvers = {
  ...scalarResolvers,
  Query: { ...Query, ...NotificationsQuery },
  Mutation: { ...Mutation, ...NotificationsMutation },
  Notifications,
  Subscription,
  TokenSet,
  Customer,
  Order,
  Product,
  Configuration,
  Vehicle,
  Pickup,
  Estimate,
  Payment,
  TradeIn,
  TradeInVehicle,
};
