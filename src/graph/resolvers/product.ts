import type { ProductResolvers } from '../__generated__/resolvers-types.js';
import { money } from './mapping.js';

export const Product: ProductResolvers = {
  msrp: ({ msrp, currencyCode }) => money(msrp, currencyCode),
  preorderFee: ({ preorderFee, currencyCode }) => money(preorderFee, currencyCode),
  deliveryFees: ({ deliveryFees, currencyCode }) => money(deliveryFees, currencyCode),
};
