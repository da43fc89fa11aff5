import { pino, type DestinationStream, type Logger } from 'pino';

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
    destination,
  );
}
