// The CLI at its edges, as a real process: the password prompt on a terminal, upstream text made inert, answers bounded in size and in silence.
import { createServer, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCustomer, demoOrders, demoUser } from '../helpers/demo.js';
import { listen, startHarness, type Harness } from '../helpers/harness.js';
import { buildDist } from '../helpers/process.js';
import { order, startFront, startOrder, startOrderOnTerminal, until } from '../helpers/order-cli.js';

/** Everything a terminal acts on rather than prints (see src/cli/terminal.ts), as a test of the output. */
const ACTS_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/**
 * ESC [2J clears the screen, ESC ]0;…BEL sets the window title, CR and BS go back over the
 * line, LF starts a forged one, U+009B is an 8-bit CSI and U+202E turns the text around.
 */
const HOSTILE = 'Evil\u001b[2J\u001b]0;pwned\u0007\r\b\bName\nForged: line\u009b31m\u202eTxe';
/** What is left of it to print: the sequences' letters, no line break. */
const SHOWN = 'Evil[2J]0;pwned Name Forged: line31mTxe';

const MIB = 1024 * 1024;

let harness: Harness;
beforeAll(async () => {
  buildDist();
  harness = await startHarness({ sockets: true, gateway: { live: { pollIntervalMs: 200 } } });
});
afterAll(() => harness?.close());

const customer = (username: string) => demoCustomer(harness.simulator, username);
const orderOf = (username: string) => demoOrders(harness.simulator, username)[0]!;
const as = (username: string, ...more: string[]) =>
  [
    ['--username', username, '--endpoint', harness.endpoint, ...more],
    { env: { ORDER_GRAPH_PASSWORD: customer(username).password } },
  ] as const;

describe('the password prompt, on a terminal', () => {
  it('asks, shows nothing of what is typed (a correction included), and logs in', async () => {
    const { password } = customer('ready@demo.test');
    const terminal = startOrderOnTerminal(['--username', 'ready@demo.test', '--endpoint', harness.endpoint]);
    await until(terminal.screen, /Password for ready@demo\.test: $/);
    // A typo rubbed out with Backspace, then the password and Enter.
    terminal.type(`typo-zq${'\u007f'.repeat(7)}${password}\r`);
    expect(await terminal.done, terminal.screen()).toBe(0);
    const screen = terminal.screen();
    expect(screen).toContain('Stage 7 of 8: ready for pickup');
    expect(screen).not.toContain(password);
    expect(screen).not.toContain('typo-zq');
  });

  it('Ctrl-C at the prompt: exit 130, and no login is tried', async () => {
    const logins = () => harness.simulator.requestLog.filter((entry) => entry.operation === 'login').length;
    const before = logins();
    const terminal = startOrderOnTerminal(['--username', 'ready@demo.test', '--endpoint', harness.endpoint]);
    await until(terminal.screen, /Password for ready@demo\.test: $/);
    terminal.type('half-typed\u0003');
    expect(await terminal.done, terminal.screen()).toBe(130);
    expect(terminal.screen()).toMatch(/order: no password given; stopped/);
    expect(terminal.screen()).not.toContain('half-typed');
    expect(logins()).toBe(before);
  });
});

describe('text from upstream reaches the terminal inert', () => {
  it('the summary: no escape sequence, control or bidi character, and no forged line', async () => {
    const user = demoUser(harness.simulator, 'production@demo.test');
    const vehicle = harness.simulator.data.vehicleDetails.find((v) => v.orderId === orderOf('production@demo.test').id)!;
    const clean = await order(...as('production@demo.test'));
    const saved = { firstName: user.firstName, exterior: vehicle.exterior };
    user.firstName = HOSTILE;
    vehicle.exterior = HOSTILE;
    try {
      const run = await order(...as('production@demo.test'));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).not.toMatch(ACTS_ON);
      expect(run.stdout.split('\n')[0]).toMatch(new RegExp(`^${escape(SHOWN)} `));
      expect(run.stdout).toContain(`exterior ${SHOWN}\n`);
      // The same lines as without the hostile text: none forged, none overwritten.
      expect(run.stdout.split('\n')).toHaveLength(clean.stdout.split('\n').length);

      // --json hands the text over exactly, escaped: parsing gives it back, a terminal shows it inert.
      const json = await order(...as('production@demo.test', '--json'));
      expect(json.stdout).not.toMatch(ACTS_ON);
      expect(JSON.parse(json.stdout).customer.firstName).toBe(HOSTILE);
    } finally {
      Object.assign(user, { firstName: saved.firstName });
      Object.assign(vehicle, { exterior: saved.exterior });
    }
  });

  it('--watch: a change line holds the text inert, on one line', async () => {
    const moving = orderOf('confirmed@demo.test');
    const saved = moving.status;
    // Wide enough for the whole change: on a pipe, lines are otherwise fitted to 80 columns.
    const [args, { env }] = as('confirmed@demo.test', '--watch');
    const run = startOrder(args, { env: { ...env, COLUMNS: '400' } });
    try {
      await until(() => run.output.stderr, /watching your orders/);
      // The hub has polled since the subscription (its state on subscribing is the one summarised): the change comes from a poll, with its fields.
      const polls = () => harness.simulator.requestLog.filter((entry) => entry.operation === 'orderDetails').length;
      const before = polls();
      await until(() => String(polls() - before), /^([2-9]|\d{2,})$/);
      const summary = run.output.stdout;
      // A forged line within the 64 characters a status may have (upstream/models.ts).
      moving.status = `BUILD_\u001b[1A\u001b[2KLOCKED\r\n${moving.reservationId}  status: delivered`;
      await until(() => run.output.stdout.slice(summary.length), /rawStatus.*\n$/);
      const added = run.output.stdout.slice(summary.length);
      expect(added).not.toMatch(ACTS_ON);
      expect(added.trimEnd().split('\n')).toHaveLength(1);
      expect(added).toContain(`rawStatus: ORDER_CONFIRMED → BUILD_[1A[2KLOCKED  ${moving.reservationId}  status: delivered`);
    } finally {
      moving.status = saved;
      run.child.kill('SIGINT');
      await run.done;
    }
  });

  it('an error message from the gateway: one inert line on stderr', async () => {
    const gateway = createServer((_request, response) => {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ data: null, errors: [{ message: HOSTILE, extensions: { code: 'FORBIDDEN' } }] }));
    });
    const url = `${await listen(gateway)}/graphql`;
    try {
      const run = await order(['--username', 'ready@demo.test', '--endpoint', url], {
        env: { ORDER_GRAPH_PASSWORD: 'secret-for-hostile' },
      });
      expect(run.code).toBe(3);
      expect(run.stderr).toBe(`order: login refused: ${SHOWN} (FORBIDDEN)\n`);
    } finally {
      gateway.closeAllConnections();
      gateway.close();
    }
  });
});

/** Sends an endless body (64 KiB at a time, as fast as the reader takes it) after `head`, up to `upTo` bytes; counts what the socket took. */
function flood(response: ServerResponse, contentType: string, head: string, upTo = 256 * MIB) {
  const sent = { bytes: 0 };
  const chunk = Buffer.alloc(64 * 1024, 'a');
  response.writeHead(200, { 'content-type': contentType });
  response.write(head);
  const more = () => {
    while (!response.destroyed && sent.bytes < upTo) {
      sent.bytes += chunk.length;
      if (!response.write(chunk)) return void response.once('drain', more);
    }
    if (!response.destroyed) response.end();
  };
  more();
  return sent;
}

describe('an answer larger than --max-answer-mb is cut off as it arrives', () => {
  it.each([
    ['--max-answer-mb 1', ['--max-answer-mb', '1'], 1],
    ['the default, 16 MiB', [], 16],
  ])('%s: exit 4 with one line, and the connection closed after about that much', async (_what, more, mib) => {
    let sent = { bytes: 0 };
    const front = await startFront(harness.endpoint, (seen, _request, response) => {
      if (seen.operation !== 'WholeOrder') return false;
      sent = flood(response, 'application/json', '{"data":{"me":{"firstName":"');
      return true;
    });
    try {
      const run = await order(['--username', 'ready@demo.test', '--endpoint', front.endpoint, ...more], {
        env: { ORDER_GRAPH_PASSWORD: customer('ready@demo.test').password },
      });
      console.info(`order ${_what}, an endless answer: ${(sent.bytes / MIB).toFixed(1)} MiB sent before the CLI closed the connection`);
      expect(run.code, run.stderr).toBe(4);
      expect(run.stderr).toMatch(
        new RegExp(
          `^order: the response from Order Graph at .* is larger than ${mib} MiB, the most this command reads \\(--max-answer-mb\\); it was cut off\\n$`,
        ),
      );
      // It read that much, then let go: the rest is what the sockets' buffers took meanwhile.
      expect(sent.bytes).toBeGreaterThanOrEqual(mib * MIB);
      expect(sent.bytes).toBeLessThan((mib + 48) * MIB);
    } finally {
      await front.close();
    }
  });

  it('--watch: one update larger than the bound stops watching with exit 4 (subscribing again would bring it again)', async () => {
    const front = await startFront(harness.endpoint, (seen, _request, response) => {
      if (seen.operation !== 'OrderUpdates') return false;
      flood(response, 'text/event-stream', ':\n\nevent: next\ndata: {"payload":{"data":{"orderUpdates":"');
      return true;
    });
    try {
      const run = await order(['--username', 'ready@demo.test', '--endpoint', front.endpoint, '--watch', '--max-answer-mb', '1'], {
        env: { ORDER_GRAPH_PASSWORD: customer('ready@demo.test').password },
      });
      expect(run.code, run.stderr).toBe(4);
      expect(run.stderr).toMatch(
        /\norder: an update from Order Graph at .* is larger than 1 MiB, the most this command reads \(--max-answer-mb\); watching stopped\n$/,
      );
      expect(front.count('OrderUpdates')).toBe(1);
    } finally {
      await front.close();
    }
  });
});

describe('--watch notices a stream that went silent', () => {
  it('no event and no keep-alive for --watch-timeout: lets the stream go, subscribes again, and the next change shows', async () => {
    const front = await startFront(harness.endpoint, (seen, _request, response) => {
      // The first subscription is accepted, then nothing more: a connection a NAT or a proxy dropped without a word.
      if (seen.operation !== 'OrderUpdates' || front.count('OrderUpdates') > 1) return false;
      response.writeHead(200, { 'content-type': 'text/event-stream' }).write(':\n\n');
      return true;
    });
    const moving = orderOf('production@demo.test');
    const saved = moving.status;
    const { password } = customer('production@demo.test');
    const run = startOrder(
      ['--username', 'production@demo.test', '--endpoint', front.endpoint, '--watch', '--watch-timeout', '2', '--watch-interval', '0.1'],
      { env: { ORDER_GRAPH_PASSWORD: password } },
    );
    try {
      await until(
        () => run.output.stderr,
        /order: no word from Order Graph for 2 s \(--watch-timeout\): the stream is taken as broken; subscribing again\n/,
      );
      await until(() => String(front.count('OrderUpdates')), /^[2-9]/);
      expect(front.seen.find((entry) => entry.operation === 'OrderUpdates')!.closed).toBe(true);
      moving.status = 'IN_TRANSIT';
      await until(() => run.output.stdout, new RegExp(`\\d  ${moving.reservationId}  status: in production → in transit`));
    } finally {
      moving.status = saved;
      run.child.kill('SIGINT');
      await run.done;
      await front.close();
    }
    expect((await run.done).code).toBe(0);
  });

  it('a stream that sends only keep-alives is alive: it is kept, never replaced', async () => {
    const pings: NodeJS.Timeout[] = [];
    let kept = 0;
    const front = await startFront(harness.endpoint, (seen, _request, response) => {
      if (seen.operation !== 'OrderUpdates') return false;
      response.writeHead(200, { 'content-type': 'text/event-stream' }).write(':\n\n');
      // 15 keep-alives per --watch-timeout: a busy machine delays some, never all of them.
      pings.push(setInterval(() => response.write(':\n\n', () => kept++), 200));
      return true;
    });
    const run = startOrder(
      ['--username', 'ready@demo.test', '--endpoint', front.endpoint, '--watch', '--watch-timeout', '3', '--watch-interval', '0.1'],
      { env: { ORDER_GRAPH_PASSWORD: customer('ready@demo.test').password } },
    );
    try {
      await until(() => run.output.stderr, /watching your orders/);
      // More than one timeout's worth of keep-alives (23 × 200 ms; a busy machine only spaces them further).
      await until(() => String(kept), /^(2[3-9]|[3-9]\d|\d{3,})$/);
      expect(run.output.stderr).not.toContain('no word from Order Graph');
      expect(front.count('OrderUpdates')).toBe(1);
    } finally {
      for (const ping of pings) clearInterval(ping);
      run.child.kill('SIGINT');
      await run.done;
      await front.close();
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
