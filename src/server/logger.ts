// The logger: pino on a stdout that never blocks the event loop, with secrets redacted.
import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Standard output, written synchronously, one line at a time, and never waited on: a line
 * the pipe cannot take right now (EAGAIN) is dropped, and once the pipe is gone (EPIPE: the
 * reader exited) nothing more is written. So a closed or stalled stdout can neither block the
 * event loop nor keep the process from exiting (pino's asynchronous default flushes at exit,
 * and loops forever on a pipe that is gone).
 */
function standardOutput(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: true, retryEAGAIN: () => false });
  // What stdout fails with has nowhere to be reported; pino stops writing after EPIPE itself.
  destination.on('error', () => undefined);
  return destination;
}

/**
 * The process logger. Secrets are redacted by path as a second line of defence: the code
 * never hands a token, a password or an Authorization header to it in the first place.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'authorization',
          '*.authorization',
          'headers.authorization',
          '*.headers.authorization',
          'token',
          '*.token',
          'password',
          '*.password',
          'variables.password',
          'variables.refreshToken',
          '*.variables.password',
          '*.variables.refreshToken',
        ],
        censor: '[redacted]',
      },
    },
    destination ?? standardOutput(),
  );
}
