// Customer: the signed-in caller's own record and orders, and the fields customer-level calls back (calls.ts).
import type { CustomerResolvers } from '../__generated__/resolvers-types.js';
import { CALLER } from '../loaders.js';
import { addressOf } from './address.js';
import { customerCallFields } from './calls.js';
import { ordersPage } from './order.js';

export const Customer: CustomerResolvers = {
  ...customerCallFields(),
  address: ({ address }) => addressOf(address),
  orders: ordersPage,
  orderCount: async (_customer, _args, { loaders }, info) => (await loaders.orderDetails.load(CALLER, info)).length,
};
