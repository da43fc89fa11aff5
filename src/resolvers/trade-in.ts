import type { TradeInResolvers, TradeInStatus, TradeInVehicleResolvers } from '../__generated__/resolvers-types.js';
import type { TradeIn as TradeInModel } from '../upstream/models.js';
import { money, toDateTime, toDistanceUnit, toEnum } from './mapping.js';

/** The trade-in record, with the currency its amounts are in (the offer's, else the order's). */
export type TradeInParent = TradeInModel & { currencyCode: string | null };

const TRADE_IN_STATUSES: readonly Exclude<TradeInStatus, 'UNKNOWN'>[] = [
  'NOT_STARTED',
  'OFFER_PENDING',
  'OFFER_RECEIVED',
  'OFFER_ACCEPTED',
  'INSPECTION_SCHEDULED',
  'COMPLETED',
  'DECLINED',
];

export const TradeIn: TradeInResolvers = {
  status: ({ status }) => toEnum(status, TRADE_IN_STATUSES),
  partner: ({ partner }) => partner ?? null,
  partnerReferenceId: ({ partnerReferenceId }) => partnerReferenceId ?? null,
  vehicle: ({ vehicle }) => vehicle ?? null,
  offer: ({ offer }) => {
    const amount = money(offer?.amount, offer?.currencyCode);
    return amount ? { amount, expiresAt: toDateTime(offer?.expiresAt) } : null;
  },
  payoffAmount: ({ payoff, currencyCode }) => money(payoff?.amount, currencyCode),
  lienHolder: ({ payoff }) => payoff?.lienHolder ?? null,
  netCredit: ({ netCredit, currencyCode }) => money(netCredit, currencyCode),
};

export const TradeInVehicle: TradeInVehicleResolvers = {
  mileageUnit: ({ mileageUnit }) => toDistanceUnit(mileageUnit),
};
