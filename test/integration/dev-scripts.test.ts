// The development scripts as a developer runs them from a checkout, each a separate command:
// `npm run simulator` (Ctrl-C through npm: exit 0, nothing left running).
import { afterEach, describe, expect, it } from 'vitest';
import { interruptNpmRun, killStarted } from '../helpers/process.js';

afterEach(killStarted);

describe('npm run simulator', () => {
  it('Ctrl-C (SIGINT to the whole process group, npm passing it on too, or to npm alone) stops it: exit 0, nothing left running', async () => {
    for (const target of ['group', 'npm'] as const) {
      // The line it prints once it listens, its handlers in place.
      const ended = await interruptNpmRun('simulator', [], { SIM_PORT: '0' }, /^\{"urls":/m, target);
      expect({ target, code: ended.code, signal: ended.signal, left: ended.left }, ended.stderr).toEqual({
        target,
        code: 0,
        signal: null,
        left: [],
      });
    }
  }, 60_000);
});
