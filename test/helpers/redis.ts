// Debian's redis-server (.ci/run installs it), started by a test on a free port: no
// persistence, loopback only. It can be killed and started again on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

export const REDIS_SERVER = '/usr/bin/redis-server';
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
  /** Starts it again on the same port, empty (no persistence). */
  start(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const proc = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
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
  const kill = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise((resolve) => {
      proc.once('exit', resolve);
      proc.kill('SIGKILL');
    });
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, kill, start };
}
