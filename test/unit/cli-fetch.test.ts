// The CLI's bounded fetch against a real HTTP server on port 0: answers cut by size (whole, or per event of a stream) and by silence.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ResponseSilent, ResponseTooLarge, boundedFetch, heldBytes } from '../../src/cli/fetch.js';
import { listen } from '../helpers/harness.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A server answering with `handler`; `closed` counts the answers whose connection the client dropped or finished. */
async function serve(handler: Handler) {
  const state = { closed: 0 };
  const server = createServer((request, response) => {
    response.on('close', () => state.closed++);
    handler(request, response);
  });
  const url = await listen(server);
  const handle = {
    url,
    state,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  servers.push(handle);
  return handle;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('size', () => {
  it('a body past maxBytes: reading it fails with ResponseTooLarge and the connection is let go before the server is done', async () => {
    let written = 0;
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const more = () => {
        while (!response.destroyed && written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', more);
        }
        response.end();
      };
      more();
    });
    const { fetch, last } = boundedFetch({ maxBytes: 100_000 });
    const response = await fetch(server.url);
    const error = await rejection(response.text());
    expect(error).toBeInstanceOf(ResponseTooLarge);
    expect(last.cut).toBe(error);
    await expect.poll(() => server.state.closed).toBe(1);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('exactly maxBytes is read whole', async () => {
    const server = await serve((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('y'.repeat(5000)));
    const { fetch, last } = boundedFetch({ maxBytes: 5000 });
    expect(await (await fetch(server.url)).text()).toHaveLength(5000);
    expect(last.cut).toBeNull();
  });

  it('a declared Content-Length past maxBytes is refused before the body is read', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10_000_000) });
      response.write('{');
    });
    const { fetch, last } = boundedFetch({ maxBytes: 1000 });
    const error = await rejection(fetch(server.url));
    expect(error).toBeInstanceOf(ResponseTooLarge);
    expect(last).toMatchObject({ status: 200, cut: error });
  });

  it('an event stream is bounded per event: many small events past maxBytes in all pass, one large event does not', async () => {
    const event = `event: next\ndata: ${JSON.stringify({ payload: { data: { text: 'z'.repeat(200) } } })}\n\n`;
    const server = await serve((request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (request.url === '/small') response.end(event.repeat(100));
      else response.end(`event: next\ndata: ${'w'.repeat(5000)}\n\n`);
    });
    const { fetch } = boundedFetch({ maxBytes: 1000 });
    expect(await (await fetch(`${server.url}/small`)).text()).toHaveLength(event.length * 100);
    expect(await rejection((await fetch(`${server.url}/large`)).text())).toBeInstanceOf(ResponseTooLarge);
  });

  it('heldBytes: each event counted whole, from its first byte to the blank line that ends it, across chunks', () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    const count = heldBytes(true);
    expect(count(bytes('data: 1234'))).toBe(10);
    expect(count(bytes('5678\n'))).toBe(15);
    // The blank line split across two chunks ends the event at 16 bytes; 2 of the next are held.
    expect(count(bytes('\nda'))).toBe(16);
    // "data: 9\n\n" (9 bytes) ends here, then ":\n\n", then "abc" is held: the largest counts.
    expect(count(bytes('ta: 9\n\n:\n\nabc'))).toBe(9);
    expect(count(bytes('d'))).toBe(4);
    const whole = heldBytes(false);
    whole(bytes('a\n\nb'));
    expect(whole(bytes('\n\ncd'))).toBe(8);
  });
});

describe('silence', () => {
  it('no headers within idleMs: the fetch fails with ResponseSilent', async () => {
    const server = await serve(() => {
      // Accepts the request, never answers.
    });
    const cuts: unknown[] = [];
    const { fetch } = boundedFetch({ maxBytes: 1000, idleMs: 300, onCut: (why) => cuts.push(why) });
    const error = await rejection(fetch(server.url));
    expect(error).toBeInstanceOf(ResponseSilent);
    expect(cuts).toEqual([error]);
    await expect.poll(() => server.state.closed).toBe(1);
  });

  it('headers, then nothing while the reader waits: the read fails with ResponseSilent and the connection is let go', async () => {
    const server = await serve((_request, response) => response.writeHead(200, { 'content-type': 'text/event-stream' }).write(':\n\n'));
    const { fetch, last } = boundedFetch({ maxBytes: 1000, idleMs: 300 });
    const reader = (await fetch(server.url)).body!.getReader();
    expect((await reader.read()).value).toEqual(new TextEncoder().encode(':\n\n'));
    expect(await rejection(reader.read())).toBeInstanceOf(ResponseSilent);
    expect(last.cut).toBeInstanceOf(ResponseSilent);
    await expect.poll(() => server.state.closed).toBe(1);
  });

  it('the time a busy reader takes between reads is not silence: only waiting for the network counts', async () => {
    let sent!: () => void;
    const allSent = new Promise<void>((resolve) => (sent = resolve));
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' }).write(':\n\n');
      setTimeout(() => response.end('event: complete\n\n', sent), 50);
    });
    const { fetch, last } = boundedFetch({ maxBytes: 1000, idleMs: 300 });
    const reader = (await fetch(server.url)).body!.getReader();
    await reader.read();
    // Busy for three idle timeouts once the rest of the answer is sent (at load 19 the server's
    // 50 ms came after the 900, and the reader then waited on the network: silence indeed).
    await allSent;
    await sleep(900);
    const text: string[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) text.push(new TextDecoder().decode(next.value));
    expect(text.join('')).toBe('event: complete\n\n');
    expect(last.cut).toBeNull();
  });

  it('without idleMs, nothing is cut for silence', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' }).write('a');
      setTimeout(() => response.end('b'), 400);
    });
    const { fetch } = boundedFetch({ maxBytes: 1000 });
    expect(await (await fetch(server.url)).text()).toBe('ab');
  });
});
