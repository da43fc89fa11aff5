// The development scripts as a developer runs them from a checkout, each a separate command:
// `npm run dev` (the gateway from the sources: .env read as npm start reads it, started again
// on a change to a source or to .env) and `npm run simulator` (Ctrl-C through npm: exit 0,
// nothing left running).
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkoutCopy, groupMembers, interruptNpmRun, killStarted, startProcess, type Started } from '../helpers/process.js';

afterEach(killStarted);

/** Resolves with the output after `from` once it matches, or null when it has not within `ms` (a backstop: each wait ends when the output shows up). */
async function outputAfter(started: Started, from: number, pattern: RegExp, ms: number): Promise<string | null> {
  for (let waited = 0; waited <= ms; waited += 50) {
    const after = started.stdout().slice(from);
    if (pattern.test(after)) return after;
    if (started.child.exitCode !== null) throw new Error(`npm run dev ended:\n${started.stdout()}\n${started.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

/** Makes a change until Node's watcher starts the gateway again, then waits for `shown`; resolves with the output from the change on. */
async function afterChange(started: Started, change: (round: number) => void, shown: RegExp): Promise<string> {
  const from = started.stdout().length;
  // The watcher may not have taken a file yet when the banner shows (the process it runs
  // reports each file it loads on its own time): a change it missed is made again. Once it
  // restarts, no further change: each would cut the start it interrupts.
  for (let round = 0; ; round++) {
    change(round);
    if (await outputAfter(started, from, /^Restarting /m, 2000)) break;
    if (round >= 30) throw new Error(`no restart after ${round + 1} changes:\n${started.stdout()}`);
  }
  const after = await outputAfter(started, from, shown, 60_000);
  if (!after) throw new Error(`no ${shown} after the restart:\n${started.stdout()}`);
  return after;
}

describe('npm run dev', () => {
  it('the gateway from the sources: reads .env as npm start does, starts again on a change to a source or to .env, and Ctrl-C stops it: exit 0, nothing left running', async () => {
    const copy = checkoutCopy(mkdtempSync(join(tmpdir(), 'order-graph-dev-')));
    try {
      writeFileSync(join(copy, '.env'), '# local settings\nGRAPHIQL=off\nLOG_LEVEL=warn\n');
      const started = startProcess('npm', ['run', 'dev'], { HOME: process.env.HOME ?? '' }, copy, { group: true });
      await started.output(/GraphiQL is off \(GRAPHIQL=on turns it on\)/, 60_000);
      // A source changed: the gateway again, with .env's settings again.
      const again = await afterChange(
        started,
        (round) => appendFileSync(join(copy, 'src/server/serve.ts'), `\n// a change (${round})\n`),
        /GraphiQL is off \(GRAPHIQL=on turns it on\)/,
      );
      expect(again).toMatch(/^Restarting 'src\/server\/main\.ts'$/m);
      // .env changed: its new settings.
      await afterChange(
        started,
        (round) => writeFileSync(join(copy, '.env'), `GRAPHIQL=on\nLOG_LEVEL=warn\n# ${round}\n`),
        /GraphiQL: open/,
      );
      process.kill(-started.child.pid!, 'SIGINT');
      expect(await started.exited).toBe(0);
      expect(groupMembers(started.child.pid!)).toEqual([]);
      expect(started.stderr()).not.toMatch(/Error/);
    } finally {
      killStarted();
      rmSync(copy, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('npm run simulator', () => {
  it('Ctrl-C (SIGINT to the whole process group, npm passing it on too, or to npm alone) stops it: exit 0, nothing left running', async () => {
    for (const target of ['group', 'npm'] as const) {
      // The line it prints once it listens, its handlers in place.
      const ended = await interruptNpmRun({ script: 'simulator', env: { SIM_PORT: '0' }, ready: /^\{"urls":/m, target });
      expect({ target, code: ended.code, signal: ended.signal, left: ended.left }, ended.stderr).toEqual({
        target,
        code: 0,
        signal: null,
        left: [],
      });
    }
  }, 60_000);
});
