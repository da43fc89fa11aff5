// The resolver parents (codegen `mappers`): the upstream JSON each GraphQL type is made from,
// so a resolver maps the upstream model and the compiler checks every mapping.
import type { Order, TradeIn } from '../upstream/models.js';

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
