// Runs after every test file: no log line that file's gateways wrote, and no span they
// exported, may hold a token, a password or a bearer header. The gateways log at debug, so
// per-call lines count.
import { afterAll, expect } from 'vitest';
import { capturedLogLines, capturedSpanTexts, clearCaptured, leakedLines } from '../helpers/log-capture.js';

afterAll(() => {
  try {
    expect(
      leakedLines(),
      `${leakedLines().length} of ${capturedLogLines.length} log lines and ${capturedSpanTexts().length} spans hold a secret`,
    ).toEqual([]);
  } finally {
    clearCaptured();
  }
});
