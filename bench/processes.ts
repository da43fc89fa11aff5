// The benchmark's processes: building what they run, starting each as a child of its own
// (whose /proc entries measure.ts reads), and stopping them all however the run ends.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { TAILCALL_DIR } from './tailcall.js';

export const ROOT_URL = new URL('..', import.meta.url);
export const ROOT = fileURLToPath(ROOT_URL);
// The measured processes run on the project's own Node (the `node` devDependency), whichever
// Node runs this script (`./node_modules/.bin/tsx` alone runs the first `node` on the PATH).
const NODE_BIN = fileURLToPath(new URL('node_modules/.bin/', ROOT_URL));
export const NODE = existsSync(`${NODE_BIN}node`) ? `${NODE_BIN}node` : process.execPath;
const PATH = `${NODE_BIN}:${process.env.PATH ?? ''}`;
export const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

// ---------------------------------------------------------------------------------------
// Building: every measured process runs compiled JavaScript on node, as in production.

const APOLLO_DIR = fileURLToPath(new URL('peers/apollo/', import.meta.url));

/** A peer that is a package of its own, installed the first time (npm ci, from npm's cache when it can). */
function installPeer(name: string, dir: string) {
  if (existsSync(`${dir}node_modules`)) return;
  log(`installing ${name} (${dir.slice(ROOT.length)}, npm ci)`);
  execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit', env: { ...process.env, PATH } });
}

export function build() {
  log('building dist/ (the gateway and the simulator) and the peers');
  execFileSync(NODE, ['src/tools/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  // The peers are packages of their own: neither Apollo nor Tailcall enters the gateway's install.
  installPeer('the Apollo peer', APOLLO_DIR);
  installPeer('Tailcall', TAILCALL_DIR);
  execFileSync(NODE, [`${NODE_BIN}tsc`, '-p', 'bench/tsconfig.json'], { cwd: ROOT, stdio: 'inherit' });
  const linked = `${ROOT}dist/bench/peers/apollo/node_modules`;
  if (!existsSync(linked)) symlinkSync(`${APOLLO_DIR}node_modules`, linked);
}

// ---------------------------------------------------------------------------------------
// Child processes, each a node process whose /proc entries we read.

interface Child {
  name: string;
  proc: ChildProcess;
  stderr: string[];
  /** Told of each garbage collection's `allocated=` (a process started with GC_TRACE). */
  onCollection?: (allocatedBytes: number) => void;
}

/**
 * V8's line per garbage collection (`--trace-gc-nvp`, on stdout): its `allocated=` is the bytes
 * allocated since the collection before, every object counted, the short-lived included. The
 * measured Node processes get it; a collection costs one line more, a few a second under load.
 */
export const GC_TRACE = '--trace-gc-nvp';
const GC_ALLOCATED = / allocated=(\d+) /;

/** Lets `listener` hear of each of a child's garbage collections until the returned function is called. */
export type WatchCollections = (listener: (allocatedBytes: number) => void) => () => void;
export const children: Child[] = [];
export const isRunning = ({ proc }: Child) => proc.exitCode === null && proc.signalCode === null;

/** Starts a compiled file on node; resolves with what `ready` finds in its stdout (the first line it accepts). */
export function startChild<T>(
  name: string,
  file: string,
  env: Record<string, string>,
  ready: (line: string) => T | undefined,
  nodeArgs: string[] = [],
) {
  return startProcess(name, NODE, [...nodeArgs, file], { cwd: ROOT, env }, ready);
}

/** Starts a command as a child process of its own, whose pid is the one measured. */
export function startProcess<T>(
  name: string,
  command: string,
  args: string[],
  { cwd, env }: { cwd: string; env: Record<string, string> },
  ready: (line: string) => T | undefined,
) {
  const proc = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const child: Child = { name, proc, stderr: [] };
  children.push(child);
  createInterface({ input: proc.stderr! }).on('line', (line) => {
    child.stderr.push(line);
    if (child.stderr.length > 20) child.stderr.shift();
  });
  const watchCollections: WatchCollections = (listener) => {
    child.onCollection = listener;
    return () => (child.onCollection = undefined);
  };
  return new Promise<{ pid: number; value: T; watchCollections: WatchCollections }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 30 s`)), 30_000);
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const collection = GC_ALLOCATED.exec(line);
      if (collection) return child.onCollection?.(Number(collection[1]));
      const value = ready(line);
      if (value === undefined) return;
      clearTimeout(timer);
      resolve({ pid: proc.pid!, value, watchCollections });
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${child.stderr.join('\n')}`));
    });
  });
}

/** SIGTERM (a clean exit, so that a --cpu-prof profile is written), SIGKILL after 5 s. */
export async function stopChildren(): Promise<void> {
  const stopping = children.filter(isRunning).map(
    ({ proc }) =>
      new Promise<void>((resolve) => {
        const kill = setTimeout(() => proc.kill('SIGKILL'), 5000);
        proc.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        proc.kill('SIGTERM');
      }),
  );
  await Promise.all(stopping);
}
process.on('exit', () => children.filter(isRunning).forEach(({ proc }) => proc.kill('SIGKILL')));
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.on(signal, () => void stopChildren().finally(() => process.exit(code)));
}
