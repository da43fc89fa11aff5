// The production launcher's heap flags (src/tools/heap-flags.mjs): what it gives node with and
// without a memory limit, that node starts with them and sizes its heap as intended, and that
// NODE_HEAP_FLAGS replaces them.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { heapFlags } from '../../src/tools/heap-flags.mjs';
import { PROJECT_NODE_BIN } from '../helpers/process.js';

const MIB = 2 ** 20;
const MACHINE = 16 * 1024 * MIB;

/** The heap limit (MiB) node reports when started with `flags`. */
function heapLimitMib(flags: string[]) {
  const script = 'process.stdout.write(String(require("v8").getHeapStatistics().heap_size_limit / 2 ** 20))';
  return Number(execFileSync(join(PROJECT_NODE_BIN, 'node'), [...flags, '-e', script], { encoding: 'utf8', env: {} }));
}

describe('the launcher’s heap flags', () => {
  it('without a memory limit: a larger young generation and slower old-generation growth; V8 sizes the old generation', () => {
    const flags = ['--max-semi-space-size=16', '--heap-growing-percent=50'];
    expect(heapFlags({}, 0, MACHINE)).toEqual(flags);
    // cgroup v1 reports "no limit" as a huge number, more than the machine has.
    expect(heapFlags({}, 2 ** 63, MACHINE)).toEqual(flags);
  });

  it.each([
    [1024, 16, 720],
    [512, 16, 336],
    [256, 16, 144],
    [128, 8, 72],
  ])(
    'a %i MiB limit: the whole V8 heap is 75 %% of it, the young generation at most a quarter of that, and node starts with them',
    (limitMib, semiSpaceMib, oldSpaceMib) => {
      const flags = heapFlags({}, limitMib * MIB, MACHINE);
      expect(flags).toEqual([`--max-semi-space-size=${semiSpaceMib}`, '--heap-growing-percent=50', `--max-old-space-size=${oldSpaceMib}`]);
      expect(heapLimitMib(flags)).toBe(Math.floor(limitMib * 0.75));
    },
  );

  it('NODE_HEAP_FLAGS replaces them all, word by word; empty, node runs with its own defaults', () => {
    expect(heapFlags({ NODE_HEAP_FLAGS: ' --max-semi-space-size=16   --max-old-space-size=200 ' }, 512 * MIB, MACHINE)).toEqual([
      '--max-semi-space-size=16',
      '--max-old-space-size=200',
    ]);
    expect(heapFlags({ NODE_HEAP_FLAGS: '' }, 512 * MIB, MACHINE)).toEqual([]);
  });
});
