// Product: the product ordered, its amounts in its own currency.
import type { ProductResolvers } from '../__generated__/resolvers-types.js';
import type { Product as ProductModel } from '../../upstream/models.js';
import { labelOf } from '../code-labels.js';
import { readable } from '../../upstream/shapes.js';
import { money } from './mapping.js';

/** The product's amounts, in the product's currency: also what a live update compares. */
export const PRODUCT_AMOUNTS = {
  msrp: ({ msrp, currencyCode }: ProductModel) => money(msrp, currencyCode),
  preorderFee: ({ preorderFee, currencyCode }: ProductModel) => money(preorderFee, currencyCode),
  deliveryFees: ({ deliveryFees, currencyCode }: ProductModel) => money(deliveryFees, currencyCode),
} satisfies ProductResolvers;

export const Product: ProductResolvers = {
  ...PRODUCT_AMOUNTS,
  modelLabel: ({ model }, _, { codeLabels }) => labelOf(codeLabels, 'model', readable(model)),
  trimLabel: ({ trim }, _, { codeLabels }) => labelOf(codeLabels, 'trim', readable(trim)),
};
