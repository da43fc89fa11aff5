// The request limits (src/server/limits.ts, enforced by src/server/guards/): hostile requests,
// generated as families × sizes (test/helpers/hostile-requests.ts), sent one by one over real
// HTTP with a valid token (so a refusal is never just "unauthenticated"). Each must get its
// family's status and code, reach no upstream, and leak nothing. Then the shapes just inside
// the limits, odd but legitimate requests, and the connection a refused body leaves behind.
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getIntrospectionQuery } from 'graphql';
import { WholeOrderDocument, type WholeOrderQuery } from '../../src/client/__generated__/graphql.js';
import { CUSTOMER_OPERATIONS, ORDER_FIELD_OPERATIONS, wholeOrderCalls } from '../../src/graph/order-fields.js';
import { LIMITS } from '../../src/server/limits.js';
import { buildCorpus, findLeaks, JSON_POST, wholeOrderPage, type HostileRequest } from '../helpers/hostile-requests.js';
import { demoCustomer } from '../helpers/demo.js';
import { callCounts, execute, inProcessGateway, startGateway, startHarness, type Harness, type TestGateway } from '../helpers/harness.js';

/** The upstream calls of a whole order whose customer has one order. */
const ONE_ORDER_CALLS = wholeOrderCalls(1);

// The abuse corpus: hostile requests, generated as families × sizes, sent one by one with a
// valid token (so a refusal is never just "unauthenticated"): those of the HTTP request itself
// (its body, content type, method, GET form) over real HTTP, the documents and variables to the
// gateway in process. Each must get its family's status and code, reach no upstream, and leak
// nothing. Then hostile ids from the other side: in the upstream's own answers.

/** The families whose subject is the HTTP request as it arrives: sent through Node's HTTP server. */
const HTTP_FAMILIES: ReadonlySet<string> = new Set(['body size', 'garbage bodies', 'content types', 'GET', 'methods']);

let harness: Harness;
/** The same gateway's settings on a real socket, in front of the same in-process simulator. */
let overSocket: TestGateway;
let introspectionOff: TestGateway;
let token = '';
let password = '';
let baseline: WholeOrderQuery;

beforeAll(async () => {
  harness = await startHarness();
  overSocket = await startGateway({ upstream: harness.simulator });
  introspectionOff = inProcessGateway({ upstream: harness.simulator, introspection: false, graphiql: false });
  token = await harness.login('ready@demo.test');
  password = demoCustomer(harness.simulator, 'ready@demo.test').password;
  const { data, errors } = await execute(harness.client(token), WholeOrderDocument);
  expect(errors).toEqual([]);
  baseline = data!;
});
afterAll(async () => {
  await introspectionOff?.close();
  await overSocket?.close();
  await harness?.close();
});

interface Answer {
  status: number;
  text: string;
  /** For a chunked upload: the body's size, and how much of it had gone out when the answer came. */
  bodyBytes?: number;
  sentBytes?: number;
  json: { data?: unknown; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> } | undefined;
}

function parse(text: string): Answer['json'] {
  try {
    return JSON.parse(text) as Answer['json'];
  } catch {
    return undefined;
  }
}

type Sendable = Pick<HostileRequest, 'method' | 'path' | 'headers' | 'body' | 'target' | 'transport'>;

/** Sends the request: in process, or over a socket (`overHttp`, and every chunked one). */
async function send(request: Sendable, overHttp = false): Promise<Answer> {
  const gateway =
    request.target === 'introspectionOff' ? introspectionOff : overHttp || request.transport === 'chunked' ? overSocket : harness;
  const url = new URL(request.path ?? '/graphql', gateway.endpoint);
  const headers = { authorization: `Bearer ${token}`, ...request.headers };
  const body = request.body?.();
  if (request.transport === 'chunked') return sendChunked(url, headers, body as Uint8Array<ArrayBuffer>);
  const response = await gateway.fetch(url, { method: request.method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, text, json: parse(text) };
}

/**
 * Sends the bytes chunked, 16 KB at a time, and stops at the first sign of an answer. A
 * connection of its own (agent: false): see 'a refused body does not spoil its connection'.
 */
function sendChunked(url: URL, headers: Record<string, string>, bytes: Uint8Array): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    let offset = 0;
    const req = httpRequest(url, { agent: false, method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' } });
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          text,
          json: parse(text),
          bodyBytes: bytes.length,
          sentBytes: Math.min(offset, bytes.length),
        });
        req.destroy();
      });
      res.on('error', reject);
    });
    // Once answered, the server may drop the connection under the rest of the body.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const write = () => {
      while (!answered && offset < bytes.length) {
        const more = req.write(bytes.subarray(offset, offset + 16_384));
        offset += 16_384;
        if (!more) return void req.once('drain', write);
      }
      if (!answered) req.end();
    };
    write();
  });
}

const secrets = () => [token, password];

// `{ … on Query { … __typename } }`: 5 tokens a level and 4 around them.
const NESTING_AT_TOKEN_LIMIT = Math.floor((LIMITS.maxTokens - 4) / 5);

const corpus = buildCorpus({ token: () => token });
const families = new Map<string, HostileRequest[]>();
for (const request of corpus) families.set(request.family, [...(families.get(request.family) ?? []), request]);

describe('the hostile requests', () => {
  it('holds at least 200 hostile requests, in every family', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(200);
    expect([...families.keys()]).toEqual([
      'depth',
      'aliases',
      'repeated fields and tokens',
      'fragments',
      'page sizes',
      'body size',
      'deep lists and inputs',
      'directives',
      'operations',
      'garbage bodies',
      'content types',
      'GET',
      'methods',
      'variables',
    ]);
    expect(new Set(corpus.map((r) => `${r.family}: ${r.name}`)).size).toBe(corpus.length);
  });

  for (const [family, requests] of families) {
    describe(family, () => {
      it.for(requests)('$name', async (request) => {
        harness.simulator.clearLog();
        const answer = await send(request, HTTP_FAMILIES.has(family));
        const { expected } = request;

        expect(answer.status, answer.text.slice(0, 300)).toBe(expected.status);
        if (expected.emptyBody) {
          expect(answer.text).toBe('');
        } else if (expected.text) {
          expect(answer.text).toMatch(expected.text);
        } else {
          expect(answer.json?.errors?.length, answer.text.slice(0, 300)).toBeGreaterThan(0);
          // A refused request has no data at all (not even null).
          expect(answer.json).not.toHaveProperty('data');
          if (expected.code !== undefined) expect(answer.json!.errors![0]!.extensions?.code).toBe(expected.code ?? undefined);
          if (expected.message) {
            const messages = answer.json!.errors!.map((e) => e.message);
            expect(
              messages.some((m) => expected.message!.test(m)),
              `${expected.message} in ${JSON.stringify(messages).slice(0, 300)}`,
            ).toBe(true);
          }
        }
        expect(harness.simulator.requestLog.map((e) => e.operation)).toEqual([]);
        expect(findLeaks(answer.text, secrets())).toEqual([]);
        // The gateway stops reading at the limit: it answers before 20 MB went out.
        if (answer.bodyBytes !== undefined && answer.bodyBytes >= 20_000_000) expect(answer.sentBytes).toBeLessThan(answer.bodyBytes);
      });
    });
  }

  it('the gateway the HTTP families came to still answers the whole-order query exactly as before', async () => {
    harness.simulator.clearLog();
    const { data, errors } = await execute(overSocket.client(token), WholeOrderDocument);
    expect(errors).toEqual([]);
    expect(data).toEqual(baseline);
    expect(harness.simulator.requestLog).toHaveLength(ONE_ORDER_CALLS);
  });
});

describe('shapes inside the limits: answered, without an upstream call', () => {
  // Extra members are raw JSON text: too deep for JSON.stringify to build.
  const cases: Array<[string, string, Record<string, string>?]> = [
    // Depth and cost count fields, not fragments: the token limit is what bounds their
    // nesting, and the deepest it leaves room for is answered.
    [
      `${NESTING_AT_TOKEN_LIMIT} nested inline fragments around __typename`,
      `{ ${'... on Query { '.repeat(NESTING_AT_TOKEN_LIMIT)}__typename${' }'.repeat(NESTING_AT_TOKEN_LIMIT)} }`,
    ],
    // graphql-armor does not count aliases of __typename.
    ['100 aliases of __typename', `{ ${Array.from({ length: 100 }, (_, i) => `t${i}: __typename`).join(' ')} }`],
    // Exactly LIMITS.maxDepth.
    [
      `__type ofType chain of depth ${LIMITS.maxDepth}`,
      `{ __type(name: "Order") { fields { type { ${'ofType { '.repeat(LIMITS.maxDepth - 4)}name${' }'.repeat(LIMITS.maxDepth - 4)} } } } }`,
    ],
    // What GraphiQL sends: the limits leave it alone.
    ['the introspection query', getIntrospectionQuery()],
    // Comments are not tokens; they still count against the body size.
    ['90 KB of comments', `# ${'x'.repeat(90_000)}\n{ __typename }`],
    // Pinned, and reported: graphql-armor leaves everything under __schema out of its depth
    // count (its ignoreIntrospection default); the cost counts it (300 fields, lists once).
    // graphql-js's own introspection rule stops the cycles that multiply (fields/type,
    // interfaces/possibleTypes: see the depth family); an ofType chain stays as small as the
    // schema, so this one is answered.
    [
      '__schema ofType chain of depth 300 (not limited: under __schema)',
      `{ __schema { types { fields { type { ${'ofType { '.repeat(296)}name${' }'.repeat(296)} } } } } }`,
    ],
  ];
  it.for(cases)('%s', async ([, query, extra]) => {
    harness.simulator.clearLog();
    const members = Object.entries(extra ?? {}).map(([key, raw]) => `,${JSON.stringify(key)}:${raw}`);
    const answer = await send({
      method: 'POST',
      headers: { ...JSON_POST },
      body: () => `{"query":${JSON.stringify(query)}${members.join('')}}`,
    });
    expect(answer.status).toBe(200);
    expect(answer.json?.errors).toBeUndefined();
    expect(answer.json?.data).toBeTruthy();
    expect(answer.text.length).toBeLessThan(200_000);
    expect(harness.simulator.requestLog).toEqual([]);
    expect(findLeaks(answer.text, secrets())).toEqual([]);
  });

  it(`a body of exactly LIMITS.maxRequestBodyBytes (${LIMITS.maxRequestBodyBytes}) is read`, async () => {
    const empty = JSON.stringify({ query: '{ __typename }', variables: { pad: '' } });
    const body = JSON.stringify({ query: '{ __typename }', variables: { pad: 'a'.repeat(LIMITS.maxRequestBodyBytes - empty.length) } });
    expect(Buffer.byteLength(body)).toBe(LIMITS.maxRequestBodyBytes);
    harness.simulator.clearLog();
    const answer = await send({ method: 'POST', headers: { ...JSON_POST }, body: () => body }, true);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { __typename: 'Query' } });
    expect(harness.simulator.requestLog).toEqual([]);
  });
});

describe('odd but legitimate requests reach the upstream correctly', () => {
  const big = (c: string) => c.repeat(90_000);
  const login = 'mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }';
  const cases: Array<{
    name: string;
    query: string;
    variables?: Record<string, unknown>;
    headers?: Record<string, string>;
    body?: string;
    calls: Record<string, number>;
    check: (answer: Answer) => void;
  }> = [
    {
      name: 'login with a 90 KB username: refused by the upstream, nothing echoed',
      query: login,
      variables: { u: big('u'), p: 'x' },
      calls: { login: 1 },
      check: ({ status, json, text }) => {
        expect(status).toBe(200);
        expect(json?.data).toBeNull();
        expect(json?.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
        expect(text).not.toContain('uuuuuuuu');
      },
    },
    {
      name: 'login with a 90 KB password',
      query: login,
      variables: { u: 'ready@demo.test', p: big('p') },
      calls: { login: 1 },
      check: ({ json, text }) => {
        expect(json?.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
        expect(text).not.toContain('pppppppp');
      },
    },
    {
      name: 'refreshTokens with a 90 KB token',
      query: 'mutation ($t: String!) { refreshTokens(refreshToken: $t) { accessToken } }',
      variables: { t: big('t') },
      calls: { refreshTokens: 1 },
      check: ({ json, text }) => {
        expect(json?.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
        expect(text).not.toContain('tttttttt');
      },
    },
    {
      name: 'order(id:) with a 90 KB id: not the caller’s, null, no per-order call',
      query: 'query ($id: ID!) { order(id: $id) { id vehicle { vin } } }',
      variables: { id: big('9') },
      calls: { orderDetails: 1 },
      check: ({ status, json }) => {
        expect(status).toBe(200);
        expect(json).toEqual({ data: { order: null } });
      },
    },
    {
      name: 'an operation named __schema is just a name',
      query: 'query __schema { me { id } }',
      calls: { customerDetails: 1 },
      check: ({ json }) => expect(json).toEqual({ data: { me: { id: baseline.me!.id } } }),
    },
    {
      name: 'an operation named __type is just a name',
      query: 'query __type { orders { id } }',
      calls: { orderDetails: 1 },
      check: ({ json }) => expect(json).toEqual({ data: { orders: [{ id: baseline.me!.orders![0]!.id }] } }),
    },
    {
      name: `${LIMITS.maxAliases} aliases of orders (the limit): one upstream call`,
      query: `{ ${Array.from({ length: LIMITS.maxAliases }, (_, i) => `a${i}: orders { id }`).join(' ')} }`,
      calls: { orderDetails: 1 },
      check: ({ json }) => expect(Object.keys(json?.data as object)).toHaveLength(LIMITS.maxAliases),
    },
    {
      name: '200 nested inline fragments around me { id }: what me { id } costs, one upstream call',
      query: `{ ${'... on Query { '.repeat(200)}me { id }${' }'.repeat(200)} }`,
      calls: { customerDetails: 1 },
      check: ({ status, json }) => {
        expect(status).toBe(200);
        expect(json).toEqual({ data: { me: { id: baseline.me!.id } } });
      },
    },
    ...([16, '$first'] as const).map((first) => ({
      name: `docs/querying.md's paging example, first ${first === 16 ? 'as a literal' : 'as a variable'} (16): the customer's one whole order`,
      query: wholeOrderPage(first),
      variables: first === 16 ? {} : { first: 16 },
      // The customer, the order list and each customer-level call, then one call per per-order operation.
      calls: {
        ...Object.fromEntries(CUSTOMER_OPERATIONS.map((operation) => [operation, 1])),
        ...Object.fromEntries(Object.values(ORDER_FIELD_OPERATIONS).map((operation) => [operation, 1])),
      },
      check: ({ status, json }: Answer) => {
        expect(status).toBe(200);
        expect(json?.errors).toBeUndefined();
        expect((json?.data as WholeOrderQuery).me!.orders).toEqual(baseline.me!.orders);
      },
    })),
    {
      name: `${LIMITS.maxDirectives} directives (the limit)`,
      query: `{ me { ${Array.from({ length: LIMITS.maxDirectives }, () => 'id @include(if: true)').join(' ')} } }`,
      calls: { customerDetails: 1 },
      check: ({ json }) => expect(json).toEqual({ data: { me: { id: baseline.me!.id } } }),
    },
    {
      name: 'a form POST that carries the CSRF header',
      query: '{ me { id } }',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-graphql-yoga-csrf': '1' },
      body: `query=${encodeURIComponent('{ me { id } }')}`,
      calls: { customerDetails: 1 },
      check: ({ json }) => expect(json).toEqual({ data: { me: { id: baseline.me!.id } } }),
    },
    {
      name: 'APPLICATION/JSON ;charset=utf-8 (media types are case-insensitive)',
      query: '{ orders { id } }',
      headers: { 'content-type': 'APPLICATION/JSON ;charset=utf-8', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query: '{ orders { id } }' }),
      calls: { orderDetails: 1 },
      check: ({ json }) => expect(json).toEqual({ data: { orders: [{ id: baseline.me!.orders![0]!.id }] } }),
    },
    {
      name: 'application/graphql (not a simple request: no CSRF header needed)',
      query: '{ orders { id } }',
      headers: { 'content-type': 'application/graphql', accept: 'application/graphql-response+json' },
      body: '{ orders { id } }',
      calls: { orderDetails: 1 },
      check: ({ json }) => expect(json).toEqual({ data: { orders: [{ id: baseline.me!.orders![0]!.id }] } }),
    },
  ];
  it.for(cases)('$name', async ({ query, variables, headers, body, calls, check }) => {
    harness.simulator.clearLog();
    const answer = await send({
      method: 'POST',
      headers: headers ?? { ...JSON_POST },
      body: () => body ?? JSON.stringify({ query, variables }),
    });
    check(answer);
    expect(callCounts(harness.simulator)).toEqual(calls);
    expect(findLeaks(answer.text, secrets())).toEqual([]);
  });
});

describe('after the corpus', () => {
  it('the gateway still answers the whole-order query exactly as before', async () => {
    harness.simulator.clearLog();
    const { data, errors } = await execute(harness.client(token), WholeOrderDocument);
    expect(errors).toEqual([]);
    expect(data).toEqual(baseline);
    expect(harness.simulator.requestLog).toHaveLength(ONE_ORDER_CALLS);
  });
});

describe('a refused body does not spoil its keep-alive connection', () => {
  /** One request on the agent's connection; a request left unanswered for 2 s is 'no answer'. */
  function exchange(agent: Agent, body: Uint8Array, chunked: boolean): Promise<{ status: number | 'no answer'; connection?: string }> {
    return new Promise((resolve) => {
      const req = httpRequest(new URL(overSocket.endpoint), {
        agent,
        method: 'POST',
        timeout: 2_000,
        headers: {
          ...JSON_POST,
          authorization: `Bearer ${token}`,
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) }),
        },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
      });
      req.on('timeout', () => req.destroy(new Error('no answer')));
      req.on('error', () => resolve({ status: 'no answer' }));
      if (chunked) for (let offset = 0; offset < body.length; offset += 16_384) req.write(body.subarray(offset, offset + 16_384));
      req.end(chunked ? undefined : body);
    });
  }
  const small = new TextEncoder().encode(JSON.stringify({ query: '{ __typename }' }));
  const oversized = new TextEncoder().encode('x'.repeat(150_000));

  // A body refused at the limit is left half read. The connection must then be closed (or
  // the rest drained): a client, or a proxy pooling connections for many clients, that sends
  // its next request on it must get an answer, not a hang and a reset.
  it.for([
    ['chunked', true],
    ['with Content-Length', false],
  ] as const)('%s: the next request on the same connection is answered', async ([, chunked]) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await exchange(agent, small, false)).toMatchObject({ status: 200 });
      expect(await exchange(agent, oversized, chunked)).toMatchObject({ status: 413 });
      expect(await exchange(agent, small, false)).toMatchObject({ status: 200 });
    } finally {
      agent.destroy();
    }
  });

  it('fetch with a ReadableStream body (duplex: half, no Content-Length) gets its 413', async () => {
    const bytes = new TextEncoder().encode('x'.repeat(250_000));
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(offset, offset + 16_384));
        offset += 16_384;
      },
    });
    harness.simulator.clearLog();
    // Node's fetch needs duplex: 'half' for a stream body; its RequestInit type does not list it.
    const init: RequestInit & { duplex: 'half' } = {
      method: 'POST',
      headers: { ...JSON_POST, authorization: `Bearer ${token}` },
      body,
      duplex: 'half',
    };
    const response = await fetch(overSocket.endpoint, init);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      errors: [{ message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }],
    });
    expect(harness.simulator.requestLog).toEqual([]);
  });
});
