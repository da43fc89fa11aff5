// The logger: pino on a stdout that never blocks the event loop, with secrets redacted; JSON
// lines, or lines for a person on a terminal in development.
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

/** Where the logs go, and for whom. */
export interface LogOutput {
  /** NODE_ENV=production: JSON always, for the log collector. */
  production: boolean;
  /** Whether that output is a terminal: a person reads it. */
  terminal: boolean;
  /** The output itself (standard output unless a test gives one). */
  destination?: DestinationStream;
}

/**
 * The logs' destination: JSON lines (one object each, what a collector reads), or, in
 * development on a terminal, pino-pretty's lines for a person: the local time, the level,
 * the message, then the fields ("[10:04:56.120] INFO: request {"ms":45,…}"). pino-pretty
 * formats each line here, in this process, onto the same synchronous standard output, rather
 * than in a worker thread as its transport would: a stop still never waits on stdout, and the
 * lines stay in order with the banner. It is a dev dependency: a production install has none,
 * and logs JSON.
 */
export async function logDestination({ production, terminal, destination = standardOutput() }: LogOutput): Promise<DestinationStream> {
  if (production || !terminal) return destination;
  const pretty = await import('pino-pretty').then(
    ({ prettyFactory }) => prettyFactory({ colorize: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }),
    () => null,
  );
  return pretty ? { write: (line: string) => destination.write(pretty(line)) } : destination;
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
