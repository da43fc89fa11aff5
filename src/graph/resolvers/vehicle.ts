// Vehicle: the production details of the ordered vehicle.
import type { VehicleResolvers } from '../__generated__/resolvers-types.js';
import { labelOf } from '../code-labels.js';
import { readable } from '../../upstream/shapes.js';
import { toDateTime } from './mapping.js';

export const Vehicle: VehicleResolvers = {
  // A string upstream ("2023").
  modelYear: ({ modelYear }) => {
    const year = readable(modelYear)?.trim();
    return year && /^\d{4}$/.test(year) ? Number(year) : null;
  },
  lastUpdatedAt: ({ lastUpdatedAt }) => toDateTime(lastUpdatedAt),
  modelLabel: ({ model }, _, { codeLabels }) => labelOf(codeLabels, 'model', readable(model)),
  trimLabel: ({ trim }, _, { codeLabels }) => labelOf(codeLabels, 'trim', readable(trim)),
  exteriorLabel: ({ exterior }, _, { codeLabels }) => labelOf(codeLabels, 'exterior', readable(exterior)),
  interiorLabel: ({ interior }, _, { codeLabels }) => labelOf(codeLabels, 'interior', readable(interior)),
  wheelLabel: ({ wheel }, _, { codeLabels }) => labelOf(codeLabels, 'wheel', readable(wheel)),
};
