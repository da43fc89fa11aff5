// The real start command running, as a user and an operator run it: `npm start` (its build
// on demand, the compiled entry, the banner), its signals (SIGTERM and SIGINT to the npm
// process and its group), the drain, lost pipes, file handles and observability (starting up
// and refusing to: start-up.test.ts). Every process here is started as a separate command;
// nothing is hand-built.
import { join } from 'node:path';
import { Agent, createServer, request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LoginDocument, OrderUpdatesDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { createStreamTransport } from '../../src/client/streams.js';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { demoCustomer, demoToken } from '../helpers/demo.js';
import { execute, graphqlClient, listen } from '../helpers/harness.js';
import { freePort } from '../helpers/redis.js';
import {
  buildDist,
  childrenOf,
  isRunning,
  killStarted,
  LISTENING,
  npmStart,
  PROJECT_NODE_BIN,
  rssMb,
  startProcess,
} from '../helpers/process.js';

/** What the launcher (src/tools/start.mjs) leaves running: node, the heap flags, the compiled entry. */
const HEAP_FLAGGED_ENTRY =
  /^node --max-semi-space-size=\d+ --heap-growing-percent=50( --max-old-space-size=\d+)? dist\/src\/server\/main\.js$/;

let slow: Simulator;
let token: string;
beforeAll(async () => {
  // The tests that start the compiled entry directly need it built (npm start builds it too).
  buildDist();
  // An upstream slow enough (400 ms per call) that a whole order is still in flight when the signal comes.
  slow = await startSimulator({ latencyMs: 400 });
  token = await demoToken(slow, 'ready@demo.test');
});
afterAll(() => slow.close());
afterEach(killStarted);

/** A whole order through a keep-alive agent of its own, with the response headers. */
function wholeOrder(url: string, agent: Agent) {
  const body = JSON.stringify({ query: '{ me { orders { vehicle { vin } } } }' });
  return new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Resolves once the upstream has seen a call it had not seen when `since` was taken: a request is then in flight at the gateway. */
async function upstreamReached(since: number, upstream: Simulator = slow) {
  while (upstream.requestLog.length <= since) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function waitUntilGone(pid: number, timeoutMs = 15_000) {
  for (let waited = 0; isRunning(pid); waited += 50) {
    if (waited > timeoutMs) throw new Error(`process ${pid} is still running`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('npm start', () => {
  it('with no upstream: builds, starts node on the compiled code (no tsx, no esbuild), serves the simulator, GraphiQL cached; SIGINT stops it', async () => {
    const started = npmStart({});
    const [, url] = await started.output(LISTENING);
    const banner = await started.output(/run the WholeOrder tab\./);
    expect(banner.input).toContain(`GraphiQL: open ${url}`);
    // The order-tracker page, built with the rest and served beside GraphiQL on the same origin.
    const trackerUrl = `${new URL(url!).origin}/tracker/`;
    expect(banner.input).toContain(`Order tracker: open ${trackerUrl}`);
    expect(await (await fetch(trackerUrl)).text()).toContain('<div id="root"></div>');
    const logins = [...banner.input!.matchAll(/^\s+(\S+@demo\.test)\s+(\S+)/gm)].map((m) => ({ username: m[1]!, password: m[2]! }));
    expect(logins.map((l) => l.username)).toEqual(expect.arrayContaining(['early@demo.test', 'ready@demo.test', 'two-orders@demo.test']));

    // npm → the launcher, which became node with the heap flags on the compiled entry (same
    // process), and nothing under node.
    const [server, ...others] = childrenOf(started.child.pid!);
    expect(others).toEqual([]);
    expect(server!.command).toMatch(HEAP_FLAGGED_ENTRY);
    expect(childrenOf(server!.pid)).toEqual([]);
    // Notifications on in the demo: keys made at start, each channel offered, a line on how to try each.
    expect(banner.input).toMatch(/^Notifications \(demo: keys made at start, lost on restart; the orders read every 5 s\)/m);
    const receiverCommand = banner.input!.match(
      /^ {2}Web Push: .*\n {2}E-mail: .*\n {2}Webhook: {2}in another terminal, a receiver that prints each POST: (node -e ".*")$/m,
    )?.[1];
    expect(receiverCommand).toContain('.listen(9000)');
    console.info(`npm start: npm → ${server!.command}; server RSS ${rssMb(server!.pid).toFixed(0)} MB idle (simulator included)`);

    // GraphiQL: self-hosted, precompressed, and revalidated instead of downloaded again.
    const page = await fetch(url!, { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-encoding')).toBe('gzip');
    expect(page.headers.get('cache-control')).toBe('private, no-cache');
    const html = await page.text();
    expect(html).not.toMatch(/unpkg\.com|cdn\.jsdelivr|esm\.sh/);
    expect(html.indexOf('query WholeOrder')).toBeLessThan(html.indexOf('mutation Login'));
    // The sign-in bar, offering the demo customers.
    expect(html).toContain('order-graph-sign-in');
    expect(html).toContain('demo-password-4');
    const again = await fetch(url!, {
      headers: { accept: 'text/html', 'accept-encoding': 'gzip', 'if-none-match': page.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');

    const ready = logins.find((l) => l.username === 'ready@demo.test')!;
    const login = await execute(graphqlClient(url!), LoginDocument, ready);
    const whole = await fetch(url!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${login.data!.login.accessToken}` },
      body: JSON.stringify({ query: '{ me { orders { vehicle { vin } } } }' }),
    });
    expect(whole.headers.get('cache-control')).toBe('private, no-store');
    expect(
      ((await whole.json()) as { data: { me: { orders: { vehicle: { vin: string } }[] } } }).data.me.orders[0]!.vehicle.vin,
    ).toHaveLength(17);
    const notifications = await graphqlClient(url!).rawRequest<any>('{ notifications { enabled channels webPushPublicKey } }');
    expect(notifications.data.notifications).toEqual({
      enabled: true,
      channels: ['WEB_PUSH', 'EMAIL', 'WEBHOOK'],
      webPushPublicKey: expect.stringMatching(/^[A-Za-z0-9_-]{87}$/),
    });
    // The banner's webhook receiver, run as printed (on a free port): a local address is allowed
    // in the demo, and a test message reaches it, signed, and is printed with its id.
    const port = await freePort();
    const receiver = startProcess('sh', ['-c', receiverCommand!.replace('.listen(9000)', `.listen(${port})`)], {});
    const hook = await graphqlClient(url!, login.data!.login.accessToken).rawRequest<any>(
      'mutation ($url: String!, $refreshToken: String) { addWebhookTarget(url: $url, refreshToken: $refreshToken) { secret target { id } } }',
      { url: `http://127.0.0.1:${port}/hook`, refreshToken: login.data!.login.refreshToken },
    );
    expect([hook.errors, hook.data.addWebhookTarget.secret]).toEqual([undefined, expect.stringMatching(/^whsec_/)]);
    const sent = await graphqlClient(url!, login.data!.login.accessToken).rawRequest<any>(
      'mutation ($id: ID!) { sendTestNotification(id: $id) }',
      { id: hook.data.addWebhookTarget.target.id },
    );
    expect(sent.data.sendTestNotification).toBe(true);
    const [printed] = await receiver.output(/^test_\S+ \{.*"type":"notification\.test".*\}$/m);
    expect(printed).toContain('"title":"');
    receiver.child.kill();

    started.child.kill('SIGINT');
    expect(await started.exited).toBe(0);
    await waitUntilGone(server!.pid);
  });

  it('SIGTERM to npm: readiness goes 503, new connections are refused, the in-flight request completes, exit 0 with nothing left', async () => {
    const started = npmStart(slow.urls);
    const [, url] = await started.output(LISTENING);
    const origin = new URL(url!).origin;
    const [server] = childrenOf(started.child.pid!);
    const client = graphqlClient(url!, token);

    let answered = false;
    const seen = slow.requestLog.length;
    const inFlight = execute(client, WholeOrderDocument).finally(() => (answered = true));
    await upstreamReached(seen);
    const signalledAt = Date.now();
    started.child.kill('SIGTERM');
    // While it drains, a new connection (a load balancer's probe, say) is refused: before the
    // request in flight is answered (an order; the upstream takes 800 ms for it).
    const refusedWhileDraining = async () => {
      for (;;) {
        try {
          await fetch(`${origin}/readyz`);
        } catch {
          return !answered;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    expect(await refusedWhileDraining()).toBe(true);
    const { data, errors } = await inFlight;
    expect(errors).toEqual([]);
    expect(data?.me?.orders?.[0]?.vehicle?.vin).toHaveLength(17);
    expect(await started.exited).toBe(0);
    await waitUntilGone(server!.pid);
    console.info(`SIGTERM to npm start with a whole order in flight: exit 0 after ${Date.now() - signalledAt} ms, nothing left`);
  });

  it('a connection opened just before SIGTERM whose request comes after it (nginx opens one per request) is answered, with Connection: close', async () => {
    const started = npmStart({ ...slow.urls, LOG_LEVEL: 'info' });
    const [, url] = await started.output(LISTENING);
    const { port } = new URL(url!);
    // Something in flight keeps the drain going meanwhile.
    const seen = slow.requestLog.length;
    const inFlight = execute(graphqlClient(url!, token), WholeOrderDocument);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    await upstreamReached(seen);
    started.child.kill('SIGTERM');
    // The request comes once the gateway has begun its drain (it logs that first), however
    // long a busy machine takes to deliver the signal.
    await started.output(/shutting down/);
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n');
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received.toLowerCase()).toContain('connection: close');
    expect((await inFlight).errors).toEqual([]);
    expect(await started.exited).toBe(0);
  });

  it('a busy keep-alive client while draining: its answers say Connection: close, then it must reconnect and is refused; the drain ends with its last request', async () => {
    const started = npmStart(slow.urls);
    const [, url] = await started.output(LISTENING);
    const [server] = childrenOf(started.child.pid!);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const idle = new Agent({ keepAlive: true, maxSockets: 1 });
    // One idle keep-alive connection, and one kept busy back to back.
    expect((await wholeOrder(url!, idle)).connection).toBe('keep-alive');
    const answers: { status: number; connection: string | undefined; at: number }[] = [];
    let refused: unknown;
    const busy = (async () => {
      for (;;) {
        try {
          const answer = await wholeOrder(url!, agent);
          answers.push({ ...answer, at: Date.now() });
        } catch (error) {
          refused = error;
          return;
        }
      }
    })();
    // The signal comes 200 ms into a request (each takes two upstream waves of 400 ms).
    for (let waited = 0; answers.length === 0; waited += 20) {
      if (waited > 10_000) throw new Error('no answer on the busy connection');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalledAt = Date.now();
    started.child.kill('SIGTERM');
    await busy;
    expect(await started.exited).toBe(0);
    const drainMs = Date.now() - signalledAt;
    await waitUntilGone(server!.pid);

    const before = answers.filter((a) => a.at < signalledAt);
    const after = answers.filter((a) => a.at >= signalledAt);
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((a) => a.status === 200 && a.connection === 'keep-alive')).toBe(true);
    // The request in flight at the signal is answered, and told to close; no further one is taken.
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ status: 200, connection: 'close' });
    expect((refused as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    console.info(`drain with a busy keep-alive client: ${after.length} answer after SIGTERM (Connection: close), exit after ${drainMs} ms`);
    agent.destroy();
    idle.destroy();
  });
});

describe('signals to the whole process group (a terminal’s Ctrl-C, a service manager’s stop)', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} to npm start’s group: node has it twice at once (directly, and from npm) and drains once: the whole order in flight is answered, then it stops`, async () => {
      const started = npmStart({ ...slow.urls, LOG_LEVEL: 'info' }, { group: true });
      const [, url] = await started.output(LISTENING);
      const [server] = childrenOf(started.child.pid!);
      const seen = slow.requestLog.length;
      const inFlight = execute(graphqlClient(url!, token), WholeOrderDocument);
      await upstreamReached(seen);
      process.kill(-started.child.pid!, signal);
      const { data, errors } = await inFlight;
      expect(errors).toEqual([]);
      expect(data?.me?.orders?.[0]?.vehicle?.vin).toHaveLength(17);
      await waitUntilGone(server!.pid);
      // What node wrote before it exited may still be on its way through the pipe.
      await started.closed;
      const lines = started
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(lines.filter((message) => message.startsWith('shutting down'))).toHaveLength(1);
      expect(lines).toContain('stopped');
      expect(lines.filter((message) => message.startsWith('stopping now'))).toEqual([]);
    });
  }

  it('a second signal more than a second after the first is a request to stop now: every connection closed, exit 1', async () => {
    // An upstream slow enough that the drain would still be waiting.
    const slower = await startSimulator({ latencyMs: 5000 });
    try {
      const started = startProcess('node', ['dist/src/server/main.js'], { ...slower.urls, PORT: '0', LOG_LEVEL: 'info' });
      const [, url] = await started.output(LISTENING);
      const seen = slower.requestLog.length;
      const inFlight = execute(graphqlClient(url!, await demoToken(slower, 'ready@demo.test')), WholeOrderDocument).then(
        () => 'answered',
        () => 'cut',
      );
      await upstreamReached(seen, slower);
      started.child.kill('SIGTERM');
      // 1.3 s after the gateway took the first (it logs that at once), however late a busy
      // machine delivered it.
      await started.output(/shutting down/);
      await new Promise((resolve) => setTimeout(resolve, 1300));
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(1);
      expect(await inFlight).toBe('cut');
      expect(started.stdout()).toContain('stopping now');
    } finally {
      await slower.close();
    }
  });
});

describe('stdout and stderr gone', () => {
  /** The compiled gateway, its pipes closed at our end once it is listening (every line it writes from then on meets EPIPE). */
  async function withClosedPipes() {
    const started = startProcess(join(PROJECT_NODE_BIN, 'node'), ['dist/src/server/main.js'], { PORT: '0', LOG_LEVEL: 'debug' });
    const [, url] = await started.output(LISTENING);
    started.child.stdout!.destroy();
    started.child.stderr!.destroy();
    return { started, url: url! };
  }

  it('SIGTERM right after its pipes closed (the first line it writes then is the shutdown’s): it exits, 0', async () => {
    const { started } = await withClosedPipes();
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
  });

  it('requests logged into closed pipes still answer, and SIGTERM then ends it, 0', async () => {
    const { started, url } = await withClosedPipes();
    for (let i = 0; i < 5; i++) expect((await fetch(`${new URL(url).origin}/healthz`)).status).toBe(200);
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(await answer.json()).toEqual({ data: { __typename: 'Query' } });
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
  });
});

describe('npm start with live streams open', () => {
  it('SIGTERM: every stream ends as a completed subscription and the drain finishes without forcing a connection', async () => {
    // Keep-alive outlasts the grace: a connection left open after its stream ended would be forced.
    const started = npmStart({ ...slow.urls, KEEP_ALIVE_TIMEOUT_MS: '60000', SHUTDOWN_GRACE_MS: '20000' });
    const [, url] = await started.output(LISTENING);
    const streams = [0, 1, 2].map(() =>
      createStreamTransport({ endpoint: url!, fetch, accessToken: () => token })(OrderUpdatesDocument, {}),
    );
    const firsts = await Promise.all(streams.map((stream) => stream.next()));
    expect(firsts.map((first) => first.value?.errors)).toEqual([[], [], []]);

    const signalledAt = Date.now();
    started.child.kill('SIGTERM');
    const ends = await Promise.all(streams.map((stream) => stream.next()));
    expect(ends.map((end) => end.done)).toEqual([true, true, true]);
    expect(await started.exited).toBe(0);
    const drainMs = Date.now() - signalledAt;
    expect(started.stdout() + started.stderr()).not.toMatch(/did not finish in time/);
    console.info(`SIGTERM to npm start with 3 live streams open: each completed, exit 0 after ${drainMs} ms`);
  });
});

describe('out of file handles', () => {
  it('an upstream call the process has no file handle for is the gateway’s own error, logged as such, never UPSTREAM_ERROR', async () => {
    const twoOrders = demoCustomer(slow, 'two-orders@demo.test');
    const bearer = await slow.issueAccessToken(twoOrders.userId);
    // 60 file handles: enough to start and serve, not enough once 80 clients hold sockets.
    const started = startProcess('sh', ['-c', 'ulimit -n 60 && exec node dist/src/server/main.js'], { ...slow.urls, LOG_LEVEL: 'warn' });
    const [, url] = await started.output(LISTENING);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ask = (query: string) =>
      new Promise<any>((resolve, reject) => {
        const req = request(
          url!,
          { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` } },
          (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve(JSON.parse(text)));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ query }));
      });
    expect((await ask('{ me { id } }')).data.me.id).toBe(twoOrders.userId);
    const { port } = new URL(url!);
    const hogs = Array.from({ length: 80 }, () => connect(Number(port), '127.0.0.1').on('error', () => undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));

    const answer = await ask('{ me { orders { id } } }');
    expect(answer.data.me.orders).toBeNull();
    expect(answer.errors.map((e: any) => e.extensions.code)).toEqual(['INTERNAL_SERVER_ERROR']);
    expect(answer.errors[0].message).toBe('The gateway is short of resources right now: try again shortly.');
    const lines = started
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    // Said at start-up already: the limit cannot hold MAX_CONNECTIONS and the upstream sockets.
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        limit: 60,
        msg: expect.stringMatching(/^the file-handle limit \(60\) is below what MAX_CONNECTIONS=4096/),
      }),
    );
    expect(lines.filter((line) => line.level === 50)).toContainEqual(
      expect.objectContaining({ msg: 'out of file handles: upstream call not made', code: 'EMFILE', operation: 'orderDetails' }),
    );
    for (const hog of hogs) hog.destroy();
    agent.destroy();
  });
});

describe('observability, configured by environment', () => {
  it('OTEL_* variables: the compiled server exports its spans to a collector (flushed on SIGTERM); /metrics is served by default', async () => {
    const bodies: string[] = [];
    const collector = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        bodies.push(`${req.url} ${req.headers['content-type']} ${body}`);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    const base = await listen(collector);
    try {
      const started = startProcess('node', ['dist/src/server/main.js'], {
        ...slow.urls,
        PORT: '0',
        LOG_LEVEL: 'warn',
        OTEL_EXPORTER_OTLP_ENDPOINT: base,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'order-graph-e2e',
      });
      const [, url] = await started.output(LISTENING);
      const client = graphqlClient(url!, token);
      client.setHeader('traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
      expect((await execute(client, WholeOrderDocument)).errors).toEqual([]);
      const metrics = await fetch(`${new URL(url!).origin}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('graphql_yoga_http_duration_count{operationName="WholeOrder",outcome="ok"} 1');
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);
      const exported = bodies.join('\n');
      expect(exported).toMatch(/^\/v1\/traces application\/json /);
      for (const text of ['order-graph-e2e', '4bf92f3577b34da6a3ce929d0e0e4736', 'query.WholeOrder', 'me.orders.0.pickup'])
        expect(exported).toContain(text);
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
  });
});
