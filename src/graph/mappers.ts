// The resolver parents (codegen `mappers`): the upstream JSON each GraphQL type is made from,
// so a resolver maps the upstream model and the compiler checks every mapping.
import type { Address, AnyAddress, Order, TradeIn } from '../upstream/models.js';

export type {
  AnyAddress,
  Configuration,
  Estimate,
  Order,
  Payment,
  PickupCenter,
  Product,
  TokenSet,
  TradeInVehicle,
  User,
  VehicleDetails,
} from '../upstream/models.js';

/**
 * An address (an order's, a customer's or a pickup centre's) by the GraphQL field names, each
 * value as the upstream's record has it (address.ts `toAddress`): its fields need no resolvers.
 */
export interface AddressParent {
  id: Address['id'];
  line1: AnyAddress['address1'];
  line2: AnyAddress['address2'];
  city: AnyAddress['city'];
  region: AnyAddress['region'];
  postalCode: AnyAddress['zipcode'];
  country: AnyAddress['country'];
  /** The upstream's value (the enum maps it); null when empty. */
  type: Address['addressType'];
  primary: Address['primary'];
  validated: Address['validated'];
}

/** The trade-in record, with the currency its amounts are in (the offer's, else the order's). */
export type TradeInParent = TradeIn & { currencyCode: string | null };

/** One changed field of an order record, as text. */
export interface FieldChange {
  field: string;
  from: string | null;
  to: string | null;
}

/** A live update: the order record as the poll saw it, and what changed in it. */
export interface OrderUpdateParent {
  order: Order;
  changes: FieldChange[];
  observedAt: string;
}
