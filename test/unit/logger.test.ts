// The logs' two forms: JSON lines for a collector (production, or any output that is not a
// terminal), and pino-pretty's lines for a person on a terminal in development; redaction
// holds in both.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, logDestination } from '../../src/server/logger.js';

/** What a logger writes through `logDestination` for that output, one entry per line. */
async function written(output: { production: boolean; terminal: boolean }): Promise<string[]> {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger('info', await logDestination({ ...output, destination }));
  logger.info({ operation: 'WholeOrder', ms: 45, headers: { authorization: 'Bearer secret' } }, 'request');
  return lines;
}

// Without colours the pretty lines are plain text (pino-pretty follows colorette's detection).
const plain = (line: string) => line.replace(/\u001b\[\d+m/g, '');

describe('the logs', () => {
  it('in development on a terminal: one readable line per entry, the time, the level, the message, the fields', async () => {
    const lines = await written({ production: false, terminal: true });
    expect(lines).toHaveLength(1);
    expect(plain(lines[0]!)).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: request \{.*"operation":"WholeOrder".*"ms":45/);
    expect(lines[0]).not.toContain('secret');
    expect(lines[0]).toContain('[redacted]');
  });

  it('on anything but a terminal, and in production even on one: a JSON object a line', async () => {
    for (const output of [
      { production: false, terminal: false },
      { production: true, terminal: true },
      { production: true, terminal: false },
    ]) {
      const lines = await written(output);
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, msg: 'request', operation: 'WholeOrder', ms: 45 });
      expect(lines[0]).not.toContain('secret');
    }
  });
});
