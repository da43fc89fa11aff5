// The SDK's stream readers: the same parts and events whichever way the network cuts the bytes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { multipartParts, sseEvents } from '../../src/client/wire.js';

/** A body that delivers `text` in chunks cut at these offsets. */
function body(text: string, cuts: number[]): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const offsets = [...new Set([0, ...cuts.map((cut) => cut % (bytes.length + 1)), bytes.length])].sort((a, b) => a - b);
  const chunks = offsets.slice(1).map((end, i) => bytes.slice(offsets[i], end));
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks.shift();
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
  });
}

async function all(parts: AsyncGenerator<string>): Promise<string[]> {
  const seen: string[] = [];
  for await (const part of parts) seen.push(part);
  return seen;
}

// As graphql-yoga sends @defer: boundary "-", a JSON body per part; one value holds the boundary and a multi-byte character.
const PAYLOADS = [
  '{"data":{"me":{"id":"c1","note":"---a ü"}},"hasNext":true}',
  '{"incremental":[{"data":{"vin":"V"},"path":["me"]}],"hasNext":true}',
  '{"hasNext":false}',
];
const MULTIPART = `---${PAYLOADS.map((payload) => `\r\nContent-Type: application/json; charset=utf-8\r\n\r\n${payload}\r\n---`).join('')}--\r\n`;

// GraphQL over SSE as the gateway sends it: keep-alive comments, next events, complete.
const EVENTS = ['{"data":{"orderUpdates":{"n":1}}}', '{"data":{"orderUpdates":{"n":2,"s":"a\\nb ü"}}}'];
const SSE = `:\n\n${EVENTS.map((event) => `event: next\r\ndata: ${event}\r\n\r\n`).join(':\n\n')}event: complete\ndata:\n\nevent: next\ndata: {"after":"complete"}\n\n`;

describe('multipartParts', () => {
  it('reads each part whole, however the body is cut', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (cuts) => {
        expect(await all(multipartParts(body(MULTIPART, cuts), '-'))).toEqual(PAYLOADS);
      }),
    );
  });

  it('stops at the closing delimiter', async () => {
    expect(
      await all(multipartParts(body(`${MULTIPART}\r\nContent-Type: application/json\r\n\r\n{"late":true}\r\n---\r\n`, []), '-')),
    ).toEqual(PAYLOADS);
  });
});

describe('sseEvents', () => {
  it("reads each next event's data, skips comments, and ends at complete, however the body is cut", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (cuts) => {
        expect(await all(sseEvents(body(SSE, cuts)))).toEqual(EVENTS);
      }),
    );
  });
});
