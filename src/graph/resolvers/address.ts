// Address: an order's, a customer's or a pickup centre's postal address, one type for all three.
import type { Address as OrderAddress, AnyAddress } from '../../upstream/models.js';
import { readable } from '../../upstream/shapes.js';
import type { AddressParent } from '../mappers.js';

/**
 * The upstream address by the GraphQL names, made once where an address is answered: its fields
 * are then read as they are (resolvers/index.ts), where a resolver per renamed field cost a call
 * on every address of every answer. A value of the wrong shape stays in its field (that field's
 * error); a customer's or pickup centre's postal address has no id, type or flags (null).
 */
export function toAddress(address: AnyAddress): AddressParent {
  const order: Partial<OrderAddress> = address;
  return {
    id: order.id,
    line1: address.address1,
    line2: address.address2,
    city: address.city,
    region: address.region,
    postalCode: address.zipcode,
    country: address.country,
    type: order.addressType || null,
    primary: order.primary,
    validated: order.validated,
  };
}

/** An address field of a record (a customer's, a pickup centre's): null when it has none, its error when unreadable. */
export const addressOf = (address: AnyAddress | null | undefined): AddressParent | null => {
  const given = readable(address);
  return given ? toAddress(given) : null;
};
