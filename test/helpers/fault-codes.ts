import type { FaultMode } from '../../src/simulator/server.js';

/** The code a field gets when its upstream call meets each fault (DESIGN §4). */
export const CODE_OF_FAULT: Record<FaultMode | 'refused', string> = {
  '500': 'UPSTREAM_ERROR',
  hang: 'UPSTREAM_TIMEOUT',
  reset: 'UPSTREAM_ERROR',
  refused: 'UPSTREAM_ERROR',
  malformed: 'UPSTREAM_ERROR',
  html: 'UPSTREAM_ERROR',
  empty: 'UPSTREAM_ERROR',
  oversized: 'UPSTREAM_ERROR',
  slowdrip: 'UPSTREAM_TIMEOUT',
  '429': 'RATE_LIMITED',
};
