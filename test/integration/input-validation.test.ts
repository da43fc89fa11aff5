// Input a caller controls is the caller's error: a 4xx or a coded GraphQL error, never a
// masked INTERNAL_SERVER_ERROR, and nothing logged at error level.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { capturedLogLines } from '../helpers/log-capture.js';

let harness: Harness;
let token: string;
beforeAll(async () => {
  harness = await startHarness({ gateway: { subgraph: true, responseCacheTtlMs: 5000 } });
  token = await harness.login('ready@demo.test');
});
afterAll(() => harness?.close());

interface Answer {
  status: number;
  errors: { message: string; extensions?: { code?: string } }[];
}

async function post(body: string, accept = 'application/json'): Promise<Answer> {
  const response = await harness.fetch(harness.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
    body,
  });
  const text = await response.text();
  // A multipart answer's first part holds the result as JSON on a line of its own.
  const result = response.headers.get('content-type')?.startsWith('multipart/')
    ? text.split(/\r?\n/).find((line) => line.startsWith('{'))!
    : text;
  const { errors = [] } = JSON.parse(result) as { errors?: Answer['errors'] };
  return { status: response.status, errors };
}

const errorLines = () => capturedLogLines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
const codes = ({ errors }: Answer) => errors.map((error) => error.extensions?.code);

describe('input that no executor or library may turn into a bug', () => {
  it('@stream(initialCount:) below zero, as a literal or a variable: BAD_USER_INPUT', async () => {
    const literal = await post(
      JSON.stringify({ query: '{ orders @stream(initialCount: -1) { id } }' }),
      'application/graphql-response+json',
    );
    expect(literal.status).toBe(400);
    expect(codes(literal)).toEqual(['BAD_USER_INPUT']);
    const variable = await post(
      JSON.stringify({ query: 'query ($n: Int!) { orders @stream(initialCount: $n) { id } }', variables: { n: -5 } }),
      'multipart/mixed',
    );
    expect(variable.status).toBe(400);
    expect(codes(variable)).toEqual(['BAD_USER_INPUT']);
  });

  it('@stream(initialCount:) null, as a literal or a nullable variable: BAD_USER_INPUT, no upstream call, no error log', async () => {
    const before = errorLines().length;
    const literal = await post(
      JSON.stringify({ query: '{ orders @stream(initialCount: null) { id } }' }),
      'application/graphql-response+json',
    );
    expect(literal.status).toBe(400);
    expect(codes(literal)).toEqual(['BAD_USER_INPUT']);
    for (const variables of [{ n: null }, {}]) {
      const variable = await post(
        JSON.stringify({ query: 'query ($n: Int) { orders @stream(initialCount: $n) { id } }', variables }),
        'multipart/mixed',
      );
      expect(variable.status, JSON.stringify(variables)).toBe(variables.n === null ? 400 : 200);
      if (variables.n === null) expect(codes(variable)).toEqual(['BAD_USER_INPUT']);
    }
    expect(errorLines().slice(before)).toEqual([]);
  });

  it('_entities with a __typename that is no entity, none at all, or a representation that is no object: BAD_USER_INPUT', async () => {
    const query = 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Order { id } } }';
    for (const representation of [
      { __typename: 'Nope', id: '1' },
      { __typename: '__proto__', id: '1' },
      { __typename: 'Query' },
      { id: '1' },
      42,
      'str',
      [1],
      true,
    ]) {
      const answer = await post(JSON.stringify({ query, variables: { r: [representation] } }));
      expect(codes(answer), JSON.stringify(representation)).toEqual(['BAD_USER_INPUT']);
    }
    // A real reference still resolves.
    const ok = await post(JSON.stringify({ query, variables: { r: [{ __typename: 'Order', id: 'nobody-s' }] } }));
    expect(ok.errors).toEqual([]);
  });

  it('variables nested 10,000 deep, with the response cache on: 400 BAD_USER_INPUT before anything recurses into them', async () => {
    for (const [open, close] of [
      ['{"a":', '}'],
      ['[', ']'],
    ]) {
      const deep = `${open!.repeat(10_000)}1${close!.repeat(10_000)}`;
      const answer = await post(`{"query":"query ($x: ID!) { order(id: $x) { id } }","variables":{"x":${deep}}}`);
      expect(answer.status).toBe(400);
      expect(codes(answer)).toEqual(['BAD_USER_INPUT']);
    }
    // The whole order still answers, from the cache's point of view too.
    const whole = await post(JSON.stringify({ query: '{ me { id } }' }));
    expect(whole.errors).toEqual([]);
  });

  it('none of it was logged at error level (errors are for the gateway’s own faults)', () => {
    expect(errorLines()).toEqual([]);
  });
});
