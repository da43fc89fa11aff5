// The CLI's --history, run as a customer runs it (its own process, over real HTTP): the orders'
// events newest first in --watch's own words, and --watch's lines the same as the history's;
// docs/cli.md's samples of both, made by the command itself.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCustomer, demoOrders, demoToken } from '../helpers/demo.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { buildDist } from '../helpers/process.js';
import { order, ROOT, startOrder, until } from '../helpers/order-cli.js';

let harness: Harness;
beforeAll(async () => {
  buildDist();
  harness = await startHarness({ sockets: true, gateway: { live: { pollIntervalMs: 200 } } });
});
afterAll(() => harness?.close());

const as = (username: string, ...more: string[]) =>
  [
    ['--username', username, '--endpoint', harness.endpoint, ...more],
    { env: { ORDER_GRAPH_PASSWORD: demoCustomer(harness.simulator, username).password } },
  ] as const;

/** A line: the local time to the minute, the reservation, what changed. */
const LINE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} {2}\S+ {2}.+$/;

describe('--history', () => {
  it('one line per event, newest first: a change in --watch’s words, the first observation as "first seen"', async () => {
    const [moving] = demoOrders(harness.simulator, 'two-orders@demo.test').filter((candidate) => candidate.status === 'IN_TRANSIT');
    const first = await order(...as('two-orders@demo.test', '--history'));
    expect(first.code, first.stderr).toBe(0);
    const firstLines = first.stdout.trimEnd().split('\n');
    expect(firstLines).toHaveLength(2);
    for (const line of firstLines) expect(line).toMatch(LINE);
    // On a pipe, lines are fitted to 80 columns.
    expect(Math.max(...firstLines.map((line) => [...line].length))).toBeLessThanOrEqual(80);
    expect(firstLines.find((line) => line.includes(moving!.reservationId))).toMatch(/ {2}first seen: in transit$/);

    moving!.status = 'READY_FOR_PICKUP';
    const second = await order(...as('two-orders@demo.test', '--history'));
    const lines = second.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`\\d  ${moving!.reservationId}  status: in transit → ready for pickup$`));
    // Older lines keep their times: the first observation did not move.
    expect(lines.slice(1).sort()).toEqual([...firstLines].sort());

    const json = await order(...as('two-orders@demo.test', '--history', '--json'));
    const events = json.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { orderId: string; changes: unknown[] });
    expect(events.map((event) => event.changes.length > 0)).toEqual([true, false, false]);
    expect(events[0]!.orderId).toBe(moving!.id);
  });

  it('--watch’s line for a change is the history’s line for it: the same time, the same words', async () => {
    const watched = demoOrders(harness.simulator, 'production@demo.test')[0]!;
    const run = startOrder(...as('production@demo.test', '--watch'));
    await until(() => run.output.stderr, /watching your orders/);
    // The stream's first state is in (two polls since it subscribed): what follows is a change.
    const polls = () => harness.simulator.requestLog.filter((entry) => entry.operation === 'orderDetails').length;
    const subscribed = polls();
    await until(() => String(polls() - subscribed), /^[2-9]|\d\d/);
    const before = run.output.stdout;
    watched.status = 'IN_TRANSIT';
    const [line] = await until(() => run.output.stdout.slice(before.length), new RegExp(`^.+\\d  ${watched.reservationId}  status: .+\n$`));
    run.child.kill('SIGINT');
    expect((await run.done).code).toBe(0);

    const history = await order(...as('production@demo.test', '--history'));
    expect(history.stdout.split('\n')[0]).toBe(line!.trimEnd());
  });

  it('reads on past the first page: every event the gateway keeps', async () => {
    const [kept] = demoOrders(harness.simulator, 'confirmed@demo.test');
    const token = await demoToken(harness.simulator, 'confirmed@demo.test');
    for (let i = 0; i < 130; i += 1) {
      kept!.status = `STEP_${i}`;
      await harness.client(token).rawRequest('{ orders { id } }');
    }
    const run = await order(...as('confirmed@demo.test', '--history'));
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    // HISTORY_EVENTS_PER_ORDER (100) are kept: the newest 100 changes, in order, newest first.
    expect(lines).toHaveLength(100);
    expect(lines.map((line) => /rawStatus: \S+ → (STEP_\d+)/.exec(line)?.[1])).toEqual(
      Array.from({ length: 100 }, (_, i) => `STEP_${129 - i}`),
    );
  });

  it('is in the usage text', async () => {
    const help = await order(['--help']);
    expect(help.stdout).toContain('--history');
  });
});

/** The first plain code block under a heading of docs/cli.md, as lines. */
function sampleUnder(heading: string): string[] {
  const page = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
  const at = page.indexOf(`\n${heading}\n`);
  expect(at, `docs/cli.md has "${heading}"`).toBeGreaterThan(0);
  return /^```\n([\s\S]*?)^```$/m.exec(page.slice(at))![1]!.trimEnd().split('\n');
}

/** An ISO time in a time zone, as the CLI shows it: "2026-11-23 10:04". */
function shownIn(timeZone: string, iso: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso));
  const part = (type: string) => parts.find((candidate) => candidate.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`;
}

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/;

describe('docs/cli.md', () => {
  it('its --watch and --history samples are the command’s output for production@demo.test, its order moved three times (local time, 80 columns)', async () => {
    // A gateway and simulator of its own: the order starts where the seed puts it.
    const own = await startHarness({ sockets: true, gateway: { live: { pollIntervalMs: 200 } } });
    try {
      const timeZone = 'America/Chicago';
      const args = ['--username', 'production@demo.test', '--endpoint', own.endpoint];
      const options = { env: { ORDER_GRAPH_PASSWORD: demoCustomer(own.simulator, 'production@demo.test').password, TZ: timeZone } };
      const run = startOrder([...args, '--watch'], options);
      await until(() => run.output.stderr, /watching your orders/);
      const polls = () => own.simulator.requestLog.filter((entry) => entry.operation === 'orderDetails').length;
      const subscribed = polls();
      await until(() => String(polls() - subscribed), /^[2-9]|\d\d/);
      const summary = run.output.stdout;
      for (let moves = 1; moves <= 3; moves += 1) {
        own.simulator.advance();
        await until(() => run.output.stdout.slice(summary.length), new RegExp(`^(.+\n){${moves}}$`));
      }
      run.child.kill('SIGINT');
      expect((await run.done).code).toBe(0);
      const watched = run.output.stdout.slice(summary.length).trimEnd().split('\n');
      const history = (await order([...args, '--history'], options)).stdout.trimEnd().split('\n');
      const events = (await order([...args, '--history', '--json'], options)).stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { observedAt: string });

      // Each line's time is when the gateway saw the change, in the local time zone.
      expect(history.map((line) => TIME.exec(line)?.[0])).toEqual(events.map((event) => shownIn(timeZone, event.observedAt)));
      expect(watched).toEqual(history.slice(0, 3).reverse());
      // The samples are those lines, but for the times (another day, another hour).
      const untimed = (lines: string[]) => lines.map((line) => line.replace(TIME, 'TIME'));
      for (const line of [...sampleUnder('## Watching: --watch'), ...sampleUnder('## History: --history')]) expect(line).toMatch(TIME);
      expect(untimed(sampleUnder('## Watching: --watch'))).toEqual(untimed(watched));
      expect(untimed(sampleUnder('## History: --history'))).toEqual(untimed(history));
      expect(Math.max(...history.map((line) => [...line].length))).toBeLessThanOrEqual(80);
    } finally {
      await own.close();
    }
  });
});
