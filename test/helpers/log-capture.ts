import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { createLogger } from '../../src/server/logger.js';

/** Every log line the gateways of this test file wrote, at debug level. */
export const capturedLogLines: string[] = [];

/** The gateway's own logger (its redaction included), writing into capturedLogLines. */
export function captureLogger(): Logger {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      capturedLogLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return createLogger('debug', sink);
}

// What must never appear in a log line: a JWT, a bearer header, a demo or test password.
const SECRET_PATTERNS = [/eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}/, /Bearer\s/i, /demo-password-\d/, /wrong-password/, /opaque-access-token/];

/** The captured lines that hold a secret. */
export const leakedLines = () => capturedLogLines.filter((line) => SECRET_PATTERNS.some((p) => p.test(line)));
