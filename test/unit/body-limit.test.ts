// The request body limit: a Content-Length over it, a chunked body past it, a Content-Length that is not one number.
import { createYoga, createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useBodyLimit } from '../../src/server/guards/request.js';

const yoga = createYoga({
  schema: createSchema({ typeDefs: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'world' } } }),
  maxRequestBodySize: false,
  plugins: [useBodyLimit(100)],
  logging: false,
});

/** A POST of `text`, with the Content-Length given or none (a stream, as a chunked body comes). */
function post(text: string, contentLength?: string) {
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let offset = 0; offset < bytes.length; offset += 10) controller.enqueue(bytes.subarray(offset, offset + 10));
      controller.close();
    },
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(contentLength === undefined ? {} : { 'content-length': contentLength }),
  };
  const init: RequestInit & { duplex: 'half' } = { method: 'POST', headers, body, duplex: 'half' };
  return yoga.fetch('http://localhost/graphql', init);
}

const query = JSON.stringify({ query: '{ hello }' });
const padded = JSON.stringify({ query: `{ hello }${' '.repeat(200)}` });

describe('useBodyLimit', () => {
  it('reads a body within the limit, with a Content-Length or without', async () => {
    for (const length of [String(query.length), undefined]) {
      const response = await post(query, length);
      expect(await response.json()).toEqual({ data: { hello: 'world' } });
    }
  });

  it('refuses a Content-Length over the limit with 413', async () => {
    const response = await post(padded, String(padded.length));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      errors: [{ message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }],
    });
  });

  it('counts a body without a Content-Length and refuses it past the limit with 413', async () => {
    const response = await post(padded);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      errors: [{ message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }],
    });
  });

  it('refuses a Content-Length that is not one non-negative integer with 400', async () => {
    for (const length of ['12, 12', '-1', 'x']) {
      const response = await post(query, length);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST' } }] });
    }
  });
});
