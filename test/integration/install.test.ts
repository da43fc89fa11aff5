// Installing the project on the machine's older Node.js (20 here), as a developer and an
// operator meet it: a development install prints only the lines the README explains (no
// EBADENGINE or install-script warnings), and a production install in the checkout refuses
// and leaves nothing behind. Both run npm itself, offline from npm's cache.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it, type ExpectStatic } from 'vitest';
import { olderSystemNode, ROOT } from '../helpers/process.js';

/** What `npm ci` reads: the manifests (the workspaces' too), the lockfile, npm's settings, the preinstall check. */
const INSTALL_FILES = [
  'package.json',
  'package-lock.json',
  '.npmrc',
  'src/tools/require-node.mjs',
  'packages/client/package.json',
  'examples/order-tracker/package.json',
];

/** A folder holding what `npm ci` reads in this checkout, and nothing else. */
function installCopy(): string {
  const folder = mkdtempSync(join(tmpdir(), 'order-graph-install-'));
  for (const path of INSTALL_FILES) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    cpSync(join(ROOT, path), join(folder, path));
  }
  return folder;
}

/**
 * `npm ci` there on the older Node.js, from npm's cache: not waited on synchronously, so the
 * file's two installs run side by side (each about 40 s, the suite's longest wait).
 */
const npmCi = (folder: string, args: string[] = []) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('npm', ['ci', '--offline', ...args], {
      cwd: folder,
      env: { PATH: olderSystemNode!.PATH, HOME: process.env.HOME ?? folder },
      timeout: 300_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject).on('close', (status) => resolve({ status, stdout, stderr }));
  });

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The README's block of what `npm ci` prints, its lines as patterns: npm's count and its time, written `…` ("added … packages in …s"), are any. */
function readmeInstallLines(expect: ExpectStatic): RegExp[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /`npm ci` prints[^\n`]*:\n\n```\n([\s\S]*?)```/.exec(readme);
  expect(block, 'README.md shows what `npm ci` prints').not.toBeNull();
  return block![1]!
    .split('\n')
    .filter((line) => line.trim())
    .map(
      (line) =>
        new RegExp(
          `^${line
            .split(/(…s|…)/)
            .map((part) => (part === '…s' ? '[\\d.]+(ms|s|m)' : part === '…' ? '\\d+' : escaped(part)))
            .join('')}$`,
        ),
    );
}

describe.skipIf(!olderSystemNode)('npm ci on the machine’s older Node.js', () => {
  it.concurrent(
    'a development install prints only the lines the README shows: no engine or install-script warnings; Node.js 24 is installed',
    async ({ expect }) => {
      const folder = installCopy();
      try {
        const install = await npmCi(folder);
        expect(install.status, install.stderr).toBe(0);
        const printed = `${install.stdout}${install.stderr}`.split('\n').filter((line) => line.trim());
        console.info(`npm ci on Node.js ${olderSystemNode!.major}: ${printed.length} lines printed`);
        expect(printed.join('\n')).not.toMatch(/EBADENGINE|install-scripts|npm warn/);
        const expected = readmeInstallLines(expect);
        expect(printed).toHaveLength(expected.length);
        printed.forEach((line, at) => expect(line).toMatch(expected[at]!));
        // The Node.js every npm script runs on (npm puts node_modules/.bin first on their PATH).
        const node = spawnSync(join(folder, 'node_modules/.bin/node'), ['--version'], { encoding: 'utf8' });
        expect(node.stdout).toMatch(/^v24\./);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
    300_000,
  );

  it.concurrent(
    'a production install in the checkout refuses in one line, and leaves no node_modules/ behind',
    async ({ expect }) => {
      const folder = installCopy();
      try {
        const install = await npmCi(folder, ['--omit=dev']);
        expect(install.status).not.toBe(0);
        expect(install.stderr).toContain(`order-graph needs Node.js 24 or newer; this is Node.js ${olderSystemNode!.major}.`);
        expect(existsSync(join(folder, 'node_modules'))).toBe(false);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
