// Debian's redis-server (.ci/run installs it), started by a test on a free port, loopback
// only, in a folder of its own (or one the test made): no persistence unless the test's
// arguments turn it on (the shipped ones do), with any further arguments a test gives, as this
// process's user or (run as root) as a user and groups the test names, as a pod's
// securityContext would run it. It can be killed and started again on the same port and
// folder, or stopped (SIGSTOP: connected but answering nothing, as a hung Redis is) and resumed.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const REDIS_SERVER = '/usr/bin/redis-server';
const SETPRIV = '/usr/bin/setpriv';
/** Present here, or required (CI=true): the tests that need it are skipped only on a machine without it. */
export const haveRedis = existsSync(REDIS_SERVER) || !!process.env.CI;

/** A port nothing listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RedisServer {
  url: string;
  /** SIGKILL: gone at once, as a crashed Redis is. */
  kill(): Promise<void>;
  /** Starts it again on the same port and folder: empty, unless its arguments persist (then with what it had written). */
  start(): Promise<void>;
  /** SIGSTOP: its connections stay open, and nothing is answered until resume(). */
  stop(): void;
  /** SIGCONT: it answers again, the commands sent meanwhile first. */
  resume(): void;
  /** Killed, and its folder removed: for the end of the test that started it. */
  close(): Promise<void>;
}

/** Who redis-server runs as: its uid and gid, and its supplementary groups (a pod's fsGroup is one). */
export interface RedisUser {
  uid: number;
  gid: number;
  groups: readonly number[];
}

/** Whether this process may start redis-server as another user (setpriv needs root). */
export const canRunAsOtherUsers = process.getuid?.() === 0 && existsSync(SETPRIV);

export async function startRedis({
  args = [],
  dir = mkdtempSync(join(tmpdir(), 'order-graph-redis-')),
  user,
}: { args?: readonly string[]; dir?: string; user?: RedisUser } = {}): Promise<RedisServer> {
  const port = await freePort();
  // The folder is kept across restarts: what the shipped arguments persist there comes back.
  const asUser = user
    ? [
        SETPRIV,
        `--reuid=${user.uid}`,
        `--regid=${user.gid}`,
        user.groups.length > 0 ? `--groups=${user.groups.join(',')}` : '--clear-groups',
      ]
    : [];
  let child: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const [command, ...commandArgs] = [
        ...asUser,
        REDIS_SERVER,
        ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...args],
      ];
      const proc = spawn(command!, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
      child = proc;
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start on ${port}:\n${output}`)), 10_000);
      const onOutput = (chunk: Buffer) => {
        output += chunk;
        if (!/Ready to accept connections/.test(output)) return;
        clearTimeout(timer);
        resolve();
      };
      proc.stdout!.on('data', onOutput);
      proc.stderr!.on('data', onOutput);
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}):\n${output}`));
      });
    });
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const kill = async () => {
    const proc = child;
    if (!proc || !running()) return;
    await new Promise((resolve) => {
      proc.once('exit', resolve);
      proc.kill('SIGKILL');
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    stop: () => void (running() && child!.kill('SIGSTOP')),
    resume: () => void (running() && child!.kill('SIGCONT')),
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The arguments deploy/kubernetes/redis.yaml starts Redis with, and its container's memory limit. */
export function shippedRedis(): { args: string[]; memoryLimit: string } {
  const text = readFileSync(new URL('../../deploy/kubernetes/redis.yaml', import.meta.url), 'utf8');
  const deployment = parseAllDocuments(text)
    .map((doc) => doc.toJS() as { kind: string; spec?: any })
    .find((object) => object.kind === 'Deployment')!;
  const container = deployment.spec.template.spec.containers[0] as { args: string[]; resources: { limits: { memory: string } } };
  return { args: container.args, memoryLimit: container.resources.limits.memory };
}

/** An argument's value: `--maxmemory` of ['--maxmemory', '200mb'] is '200mb'. */
export const argument = (args: readonly string[], name: string) => args[args.indexOf(name) + 1];

/** Redis's memory units (1k = 1000, 1kb = 1024, …) in bytes. */
export function redisBytes(value: string): number {
  const match = /^(\d+)(b|k|kb|m|mb|g|gb)?$/i.exec(value.trim());
  if (!match) throw new Error(`not a Redis memory size: ${value}`);
  const unit = { b: 1, k: 1e3, kb: 1024, m: 1e6, mb: 1024 ** 2, g: 1e9, gb: 1024 ** 3 }[(match[2] ?? 'b').toLowerCase() as 'b'];
  return Number(match[1]) * unit;
}
