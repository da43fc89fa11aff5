// Address: an order's, a customer's or a pickup centre's postal address, one type for all three.
import type { AddressResolvers } from '../__generated__/resolvers-types.js';
import type { Address as OrderAddress, AnyAddress } from '../../upstream/models.js';
import { upstreamEnum } from './mapping.js';

// A customer's or pickup centre's postal address has no id, type or flags; an order address does.
const orderAddress = (address: AnyAddress): Partial<OrderAddress> => address;

// id, primary and validated are read as they are (index.ts): a postal address has none, so null.
export const Address: AddressResolvers = {
  line1: ({ address1 }) => address1 ?? null,
  line2: ({ address2 }) => address2 ?? null,
  postalCode: ({ zipcode }) => zipcode ?? null,
  type: (address) => upstreamEnum(orderAddress(address).addressType),
};
