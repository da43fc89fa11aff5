// Vehicle: the production details of the ordered vehicle.
import type { VehicleResolvers } from '../__generated__/resolvers-types.js';
import { readable } from '../../upstream/shapes.js';
import { toDateTime } from './mapping.js';

export const Vehicle: VehicleResolvers = {
  // A string upstream ("2023").
  modelYear: ({ modelYear }) => {
    const year = readable(modelYear)?.trim();
    return year && /^\d{4}$/.test(year) ? Number(year) : null;
  },
  lastUpdatedAt: ({ lastUpdatedAt }) => toDateTime(lastUpdatedAt),
};
