// Configuration: the build chosen for the order, each option code with its words.
import type { ConfigurationResolvers } from '../__generated__/resolvers-types.js';
import { labelOf } from '../code-labels.js';
import { readable } from '../../upstream/shapes.js';

export const Configuration: ConfigurationResolvers = {
  exteriorLabel: ({ exterior }, _, { codeLabels }) => labelOf(codeLabels, 'exterior', readable(exterior)),
  interiorLabel: ({ interior }, _, { codeLabels }) => labelOf(codeLabels, 'interior', readable(interior)),
  wheelLabel: ({ wheel }, _, { codeLabels }) => labelOf(codeLabels, 'wheel', readable(wheel)),
  trimLabel: ({ trim }, _, { codeLabels }) => labelOf(codeLabels, 'trim', readable(trim)),
};
