// Pickup: the pickup centre nearest to the customer.
import type { PickupResolvers } from '../__generated__/resolvers-types.js';
import { readable } from '../../upstream/shapes.js';
import { addressOf } from './address.js';
import { toDate, toDistanceUnit } from './mapping.js';

export const Pickup: PickupResolvers = {
  locationId: ({ centerPlusLocationId }) => centerPlusLocationId,
  available: ({ pickupAvailable }) => pickupAvailable ?? null,
  address: ({ address }) => addressOf(address),
  earliestPickupDate: ({ earliestPickupDate }) => toDate(earliestPickupDate),
  distance: (pickup) => {
    const distance = readable(pickup.distance);
    const unit = toDistanceUnit(distance?.unit);
    const value = readable(distance?.value);
    return unit && typeof value === 'number' && Number.isFinite(value) ? { value, unit } : null;
  },
};
