import { statfsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The tests' scratch folders (installs of node_modules/, checkout copies, Redis's files: some
 * GB written and removed in a run) go to memory where the machine has room for them: on a
 * disk, writing and removing them took about 15 of some 215 CPU-seconds, and 8-10 s. A TMPDIR
 * of the caller's is kept; a small /dev/shm (a container's 64 MB) leaves the system's default.
 */
function scratchFolder(): string | undefined {
  if (process.env.TMPDIR) return process.env.TMPDIR;
  try {
    const { bavail, bsize } = statfsSync('/dev/shm');
    return bavail * bsize >= 4 * 1024 ** 3 ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
}
const scratch = scratchFolder();

/**
 * The files that run longest (real installs, builds, browsers, process trees: 20-40 s each),
 * started first. Vitest orders the files it has timings for longest first, but a fresh clone
 * has none, and by size these small files came last: the two installs were the run's last
 * 25 s. Started first, in one checkout, interleaved: 116.5 and 122.3 s against 122.2 and
 * 128.8 s. After them, longest first, the files of 10-30 s in a quiet fresh clone's run (live
 * 26 s … connections 11 s): left to size, some of them started in the run's last 30 s and
 * were its tail; so did upstream-failures (27 s, started at 140 of 172 s, the run's last file)
 * and the files of 7-10 s after connections (deadline … client), now listed too. A name left
 * here after its file is gone changes nothing.
 */
const LONGEST = [
  'install',
  'start-up',
  'runtime',
  'graphiql',
  'shipped-topology',
  'live',
  'upstream-failures',
  'tracker',
  'redis',
  'cli',
  'response-cache',
  'simulator-moves',
  'graphql-over-http',
  'container',
  'cli-terminal',
  'connections',
  'deadline',
  'dev-scripts',
  'memory-bounds',
  'budgets',
  'consumer-codegen',
  'redis-numbers',
  'cli-history',
  'client',
].map((name) => `/${name}.test.ts`);
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const at = LONGEST.findIndex((suffix) => spec.moduleId.endsWith(suffix));
      return at === -1 ? LONGEST.length : at;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  resolve: {
    // Vite would pick graphql's ESM build for our files while yoga, loaded by Node, gets the
    // CommonJS one: two graphql realms, and GraphQLError instanceof checks fail across them.
    alias: [
      { find: /^graphql$/, replacement: 'graphql/index.js' },
      // The tracker page's modules import the SDK by its package name; in this repository it is
      // taken from its sources, as the page's own build takes it (examples/order-tracker/vite.config.ts).
      { find: /^@order-graph\/client$/, replacement: fileURLToPath(new URL('./src/client/index.ts', import.meta.url)) },
    ],
  },
  test: {
    // The tracker page's own tests live beside it, typed by its compiler settings.
    include: ['test/**/*.test.ts', 'examples/order-tracker/test/**/*.test.{ts,tsx}'],
    setupFiles: ['test/setup/no-secrets-in-logs.ts'],
    env: scratch ? { TMPDIR: scratch } : {},
    // Four files at a time on two cores: most files wait in part (on servers, child processes,
    // timers), and four keep the cores busy; five were no faster (120 against 123 s, one run
    // each), six made socket tests fail under their own load. Every test holds on a loaded
    // machine (counts and order, never wall times), which this relies on.
    maxWorkers: 4,
    // Forked processes (vitest's default pool), not worker threads: threads took some 6 % less
    // CPU on 55 in-process files (37.5 and 41.7 against 39.5 and 44.9 CPU-seconds), but a
    // thread's TZ (vi.stubEnv) never reaches the time zone it formats in: cli-summary.test
    // failed 4 tests.
    sequence: { sequencer: LongestFirst },
    // A worker keeps the modules it loaded from one file to the next (graphql, yoga, the
    // gateway's sources): loaded once per worker, not once per file, the suite takes about a
    // third less CPU (276 against 192 CPU-seconds, 164 against 133 s). It relies on what every
    // file already does: nothing depends on a fresh module, and what a file starts it stops
    // (the log capture is cleared after each file's check, test/setup/no-secrets-in-logs.ts).
    isolate: false,
    // A guard against hangs, not a measure: the longest tests take 15-20 s on a quiet
    // machine, and a busy one runs them three to five times slower.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // expect.poll waits for what a test needs (a browser's page to show a state): vitest's 1 s
    // default is a time a loaded machine misses (at load ~20 a GraphiQL sign-in took longer);
    // a call that names its own timeout keeps it.
    expect: { poll: { timeout: 30_000 } },
    // The JSON report is what .ci/run counts from.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
