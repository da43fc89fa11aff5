import type { CustomerResolvers } from '../__generated__/resolvers-types.js';
import { CALLER } from '../loaders.js';
import { toDateTime } from './mapping.js';

export const Customer: CustomerResolvers = {
  createdAt: ({ createdAt }) => toDateTime(createdAt),
  orders: (_customer, _args, { loaders }) => loaders.orders.load(CALLER),
};
