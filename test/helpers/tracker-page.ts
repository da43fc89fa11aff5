// The order-tracker page built from its sources (examples/order-tracker/) into a folder of the caller's, as npm run build builds it, and its size.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { ROOT } from './process.js';

/** Builds the page with Vite (a process of its own: the build's modules stay out of the test's). */
export async function buildTrackerPage(outDir: string): Promise<string> {
  await promisify(execFile)(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn', '--outDir', outDir, '--emptyOutDir'],
    {
      cwd: join(ROOT, 'examples/order-tracker'),
      // React's production build, whatever NODE_ENV the test runner set (test).
      env: { ...process.env, NODE_ENV: 'production' },
      timeout: 120_000,
    },
  );
  return outDir;
}

/** The page's JavaScript, in bytes and gzipped at the gateway's level (zlib's default). */
export function trackerScriptBytes(folder: string): { raw: number; gzipped: number } {
  const scripts = readdirSync(join(folder, 'assets')).filter((name) => name.endsWith('.js'));
  const bodies = scripts.map((name) => readFileSync(join(folder, 'assets', name)));
  return { raw: bodies.reduce((sum, body) => sum + body.length, 0), gzipped: bodies.reduce((sum, body) => sum + gzipSync(body).length, 0) };
}
