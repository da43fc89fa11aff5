// Notifications off load nothing of theirs: a gateway without NOTIFY_TOKEN_KEYS (in front of the
// real service) answers `notifications { enabled }` with false and has resolved no module of
// src/notify, server/notifications.ts, web-push, nodemailer, standardwebhooks or bullmq; on,
// the same question loads them (which shows the probe sees them).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOSTS } from '../../src/upstream/contract.js';
import { PROJECT_NODE_BIN, ROOT } from '../helpers/process.js';

const UPSTREAM = Object.fromEntries(HOSTS.map((name) => [name, `http://upstream.test/${name.toLowerCase()}`]));
const NOTIFY_MODULES = /\/src\/notify\/|\/src\/server\/notifications\.ts|\/node_modules\/(web-push|nodemailer|standardwebhooks|bullmq)\//;

/** The gateway's answer, and the notification modules it resolved, in a process of its own with these settings. */
function probe(env: Record<string, string>) {
  const output = execFileSync(join(PROJECT_NODE_BIN, 'node'), ['--import', 'tsx', 'test/helpers/modules-loaded.ts', JSON.stringify(env)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const { answer, resolved } = JSON.parse(output.trim().split('\n').at(-1)!) as { answer: unknown; resolved: string[] };
  return { answer, loaded: resolved.filter((url) => NOTIFY_MODULES.test(url)).map((url) => url.slice(url.indexOf('/', 8))) };
}

describe('notifications off', () => {
  it('loads no module of theirs; on, the same question loads them', () => {
    const off = probe(UPSTREAM);
    expect(off).toEqual({ answer: { data: { notifications: { enabled: false } } }, loaded: [] });
    const on = probe({ ...UPSTREAM, NOTIFY_TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}` });
    expect(on.answer).toEqual({ data: { notifications: { enabled: true } } });
    expect(on.loaded).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/\/src\/server\/notifications\.ts$/),
        expect.stringMatching(/\/src\/notify\/service\.ts$/),
        expect.stringMatching(/\/node_modules\/standardwebhooks\//),
      ]),
    );
  });
});
