// What escapes a test file's code as an unhandled rejection or exception, for the files whose
// subject is that nothing a hostile peer (Redis, a flood of answers) sends may end the process.
import { afterAll, beforeAll } from 'vitest';

/** Collects what escapes while the file runs; each test takes its own after its cleanups (`escaped.splice(0)`). */
export function escapes(): unknown[] {
  const escaped: unknown[] = [];
  const onEscape = (error: unknown) => escaped.push(error);
  beforeAll(() => {
    process.on('unhandledRejection', onEscape);
    process.on('uncaughtException', onEscape);
  });
  afterAll(() => {
    process.off('unhandledRejection', onEscape);
    process.off('uncaughtException', onEscape);
  });
  return escaped;
}
