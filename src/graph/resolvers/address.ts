// Address: an order's, a customer's or a pickup centre's postal address, one type for all three.
import type { AddressResolvers, AddressType } from '../__generated__/resolvers-types.js';
import type { Address as OrderAddress, AnyAddress } from '../../upstream/models.js';
import { knownEnumValues } from '../sdl.js';
import { toEnum } from './mapping.js';

const ADDRESS_TYPES = knownEnumValues<AddressType>('AddressType');

// A customer's or pickup centre's postal address has no id, type or flags; an order address does.
const orderAddress = (address: AnyAddress): Partial<OrderAddress> => address;

export const Address: AddressResolvers = {
  id: (address) => orderAddress(address).id ?? null,
  line1: ({ address1 }) => address1 ?? null,
  line2: ({ address2 }) => address2 ?? null,
  postalCode: ({ zipcode }) => zipcode ?? null,
  type: (address) => {
    const { addressType } = orderAddress(address);
    return addressType ? toEnum(addressType, ADDRESS_TYPES) : null;
  },
  primary: (address) => orderAddress(address).primary ?? null,
  validated: (address) => orderAddress(address).validated ?? null,
};
