// TradeIn: an order's trade-in (vehicle, offer, payoff) in the currency it is credited in.
import type { TradeInResolvers, TradeInVehicleResolvers } from '../__generated__/resolvers-types.js';
import type { Order, TradeIn as TradeInModel } from '../../upstream/models.js';
import { readable } from '../../upstream/shapes.js';
import type { TradeInParent } from '../mappers.js';
import { money, toDateTime, toDistanceUnit } from './mapping.js';

/**
 * The trade-in with the currency its amounts are in: the record has none of its own beyond
 * the offer's, and the order's is the one it is credited in.
 */
export function withCurrency(tradeIn: TradeInModel, order: Order): TradeInParent {
  return { ...tradeIn, currencyCode: tradeIn.offer?.currencyCode ?? order.product?.currencyCode ?? null };
}

// `status` is the upstream's, as it is: its enum maps it (an unlisted value is UNKNOWN: enums.ts).
export const TradeIn: TradeInResolvers = {
  offer: ({ offer }) => {
    const given = readable(offer);
    const amount = money(given?.amount, given?.currencyCode);
    return amount ? { amount, expiresAt: toDateTime(given?.expiresAt) } : null;
  },
  payoffAmount: ({ payoff, currencyCode }) => money(readable(payoff)?.amount, currencyCode),
  lienHolder: ({ payoff }) => readable(payoff)?.lienHolder ?? null,
  netCredit: ({ netCredit, currencyCode }) => money(netCredit, currencyCode),
};

export const TradeInVehicle: TradeInVehicleResolvers = {
  mileageUnit: ({ mileageUnit }) => toDistanceUnit(mileageUnit),
};
