// Real commands as an operator runs them (npm start, the compiled entry, npm itself), each its
// own process, killed after each test; and a copy of the checkout to build or pack in.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The project's Node (the `node` dev dependency), as npm scripts get it first on their PATH. */
export const PROJECT_NODE_BIN = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url));
/** A PATH on which `node` and `npm` run the project's Node. */
export const PROJECT_PATH = `${PROJECT_NODE_BIN}:${process.env.PATH ?? ''}`;

/**
 * The machine's own node when it is older than the project's (Node 20 here), with a PATH on
 * which `node` and `npm` run it; null when there is none (then the tests that need it skip).
 */
export const olderSystemNode: { path: string; major: number; PATH: string } | null = (() => {
  try {
    const withoutProject = (process.env.PATH ?? '')
      .split(':')
      .filter((dir) => dir !== PROJECT_NODE_BIN)
      .join(':');
    const path = execFileSync('sh', ['-c', 'command -v node'], { env: { PATH: withoutProject }, encoding: 'utf8' }).trim();
    const major = Number(execFileSync(path, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim());
    return major < 24 ? { path, major, PATH: `${dirname(path)}:/usr/bin:/bin` } : null;
  } catch {
    return null;
  }
})();

/**
 * dist/ as `npm start` builds it: only when the sources changed since the last build. Every
 * file that runs the compiled code calls it first, so the suite builds once (the build's lock
 * makes the others wait, then find dist/ current). The command npm start's prestart runs, on
 * the project's Node, without npm in front of it (npm is not what these files test: at load
 * ~5, 1.6-2.2 s for `npm run build` against 0.3-0.9 s, in each of seven files' beforeAll).
 */
export function buildDist() {
  execFileSync(join(PROJECT_NODE_BIN, 'node'), ['src/tools/build.mjs', '--if-available'], {
    cwd: ROOT,
    env: { ...process.env, PATH: PROJECT_PATH },
  });
}

const started: { child: ChildProcess; group: boolean }[] = [];

/** Kills whatever a test left running (afterEach): a process group whole, so nothing under npm is left. */
export function killStarted() {
  for (const { child, group } of started.splice(0)) {
    try {
      if (group) process.kill(-child.pid!, 'SIGKILL');
      else if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    } catch {
      // gone already
    }
  }
}

export interface Started {
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Resolves once its stdout and stderr have closed: everything written to them (by it or what it started) is read. */
  closed: Promise<void>;
  /** Waits until stdout matches; resolves with the match. */
  output(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stdout(): string;
  stderr(): string;
}

/**
 * Runs a real command as an operator would: its own process, only the given environment.
 * A gateway it starts listens on a free port unless the test gives PORT, so the suite runs
 * beside a developer's `npm start` on 4000. `group`: in a process group of its own, as a
 * terminal or a service manager starts it, so a signal can go to the whole group
 * (`process.kill(-child.pid, signal)`).
 */
export function startProcess(command: string, args: string[], env: Record<string, string>, cwd = ROOT, { group = false } = {}): Started {
  const child = spawn(command, args, {
    cwd,
    env: { PATH: PROJECT_PATH, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: group,
  });
  started.push({ child, group });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const closed = Promise.all(
    [child.stdout!, child.stderr!].map((stream) => new Promise<void>((resolve) => stream.once('close', () => resolve()))),
  ).then(() => undefined);
  return {
    child,
    exited,
    closed,
    async output(pattern, timeoutMs = 30_000) {
      for (let waited = 0; ; waited += 50) {
        const match = stdout.match(pattern);
        if (match) return match;
        if (child.exitCode !== null || waited > timeoutMs) throw new Error(`no ${pattern} in the output:\n${stdout}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stdout: () => stdout,
    stderr: () => stderr,
  };
}

/** Each process's state, parent and process group, from /proc/<pid>/stat (the fields after the command's name). */
function processes(): { pid: number; state: string; ppid: number; pgid: number }[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return [{ pid: Number(name), state: state!, ppid: Number(ppid), pgid: Number(pgid) }];
      } catch {
        return []; // gone meanwhile
      }
    });
}

/** The process's children (pid and command line), from /proc. */
export function childrenOf(pid: number): { pid: number; command: string }[] {
  return processes()
    .filter((found) => found.ppid === pid)
    .flatMap((child) => {
      try {
        return [{ pid: child.pid, command: readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').join(' ').trim() }];
      } catch {
        return []; // gone meanwhile
      }
    });
}

/** The processes of a process group still running (a zombie counts as gone). */
export function groupMembers(pgid: number): number[] {
  return processes()
    .filter((found) => found.pgid === pgid && found.state !== 'Z')
    .map((found) => found.pid);
}

/** Whether a process still exists (a zombie counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Resident memory of a process in MB. */
export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? NaN) / 1024;
}

/**
 * A copy of the checkout in `dir` (its sources, with the checkout's dependencies linked):
 * building or packing there never touches the dist/ other tests run.
 */
export function checkoutCopy(dir: string): string {
  for (const path of [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'schema',
    'schema.graphql',
    'src',
    'packages',
    'examples',
    'README.md',
    'LICENSE',
  ]) {
    cpSync(join(ROOT, path), join(dir, path), {
      recursive: true,
      filter: (source) => !/\/(packages|examples)\/[^/]+\/(dist|node_modules)$/.test(source),
    });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** `npm start` as a user runs it, on a free port and quiet but for warnings. */
export const npmStart = (env: Record<string, string>, options: { group?: boolean } = {}) =>
  startProcess('npm', ['start'], { PORT: '0', LOG_LEVEL: 'warn', ...env }, ROOT, options);

/** The banner's first line, with the URL it listens at. */
export const LISTENING = /Order Graph is listening at (http:\/\/\S+)/;

/** How `npm run` ended after a Ctrl-C (interruptNpmRun). */
export interface Interrupted {
  /** npm's exit code; null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The processes of its group still running once npm had exited (killed since). */
  left: number[];
  stdout: string;
  stderr: string;
}

/** What interruptNpmRun runs, and when and how it interrupts it. */
export interface NpmRunInterruption {
  script: string;
  args?: readonly string[];
  env?: Record<string, string>;
  /** The checkout it runs in (this one by default). */
  cwd?: string;
  /** What its stdout or stderr shows once it is ready for the Ctrl-C. */
  ready: RegExp;
  /** `group`: SIGINT to the whole process group (a terminal's Ctrl-C; npm passes it on to the script as well, so the script has it twice); `npm`: to npm alone (a signal npm passes on). */
  target: 'group' | 'npm';
}

/**
 * `npm run -s <script> -- <args>` as a terminal runs it, in a process group of its own,
 * interrupted once it is ready. Whatever the group still runs afterwards is killed.
 */
export async function interruptNpmRun({
  script,
  args = [],
  env = {},
  cwd = ROOT,
  ready,
  target,
}: NpmRunInterruption): Promise<Interrupted> {
  const started = startProcess('npm', ['run', '-s', script, '--', ...args], { HOME: process.env.HOME ?? '', ...env }, cwd, {
    group: true,
  });
  const pid = started.child.pid!;
  try {
    // The timeout is only a backstop: each wait ends when the output shows up.
    for (let waited = 0; !ready.test(started.stdout() + started.stderr()); waited += 20) {
      if (started.child.exitCode !== null || waited > 60_000)
        throw new Error(`no ${ready} in the output:\n${started.stdout()}\n${started.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    process.kill(target === 'group' ? -pid : pid, 'SIGINT');
    const code = await started.exited;
    return { code, signal: started.child.signalCode, left: groupMembers(pid), stdout: started.stdout(), stderr: started.stderr() };
  } finally {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  }
}
