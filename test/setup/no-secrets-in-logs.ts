// Runs after every test file: no log line that file's gateways wrote may hold a token, a
// password or a bearer header (issue 4). The gateways log at debug, so per-call lines count.
import { afterAll, expect } from 'vitest';
import { capturedLogLines, leakedLines } from '../helpers/log-capture.js';

afterAll(() => {
  expect(leakedLines(), `${leakedLines().length} of ${capturedLogLines.length} log lines hold a secret`).toEqual([]);
});
