// Debian's nginx running the shipped deploy/nginx/nginx.conf and order-graph.conf, as a test
// starts it: the files themselves, with only their replica addresses, listen port and paths
// (pid, logs, temporary folders) put in place, in a prefix folder of the test's own, in the
// foreground.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { childrenOf, isRunning, ROOT, startProcess, type Started } from './process.js';
import { freePort } from './redis.js';

export const NGINX = '/usr/sbin/nginx';
/** Present here, or required (CI=true): the tests that need it are skipped only on a machine without it. */
export const haveNginx = existsSync(NGINX) || !!process.env.CI;

export interface Nginx {
  process: Started;
  /** http://127.0.0.1:<port>, the public side. */
  origin: string;
  /** The GraphQL endpoint through nginx. */
  endpoint: string;
  /** Its error log so far. */
  errorLog(): string;
  /** The site again with these replicas (`host:port`, optionally followed by `down`), as an operator reloads it: resolves once the old workers take no more connections. */
  reload(servers: readonly string[]): Promise<void>;
}

/** The shipped site file with our replicas (`host:port` each) in its upstream block, listening on `port` on loopback. */
export function shippedSite(servers: readonly string[], port: number): string {
  const shipped = readFileSync(join(ROOT, 'deploy/nginx/order-graph.conf'), 'utf8');
  const site = shipped
    .replace(
      /(upstream order_graph \{[\s\S]*?)(\n\s*server [^\n]+;)+/,
      (_, head: string) => `${head}${servers.map((server) => `\n    server ${server};`).join('')}`,
    )
    .replace(/listen 80;/, `listen 127.0.0.1:${port};`);
  if (site.includes('order-graph-1:4000') || !site.includes(`listen 127.0.0.1:${port};`)) {
    throw new Error('deploy/nginx/order-graph.conf no longer has the upstream block or the `listen 80;` this helper replaces');
  }
  return site;
}

/** The shipped main file (deploy/nginx/nginx.conf) with its pid file, logs and temporary folders in `dir`. */
export function shippedMain(dir: string): string {
  const system: [string, string][] = [
    ['/run/nginx.pid', join(dir, 'nginx.pid')],
    ['/var/log/nginx/', `${dir}/`],
    ['/var/lib/nginx/', `${dir}/`],
  ];
  let main = readFileSync(join(ROOT, 'deploy/nginx/nginx.conf'), 'utf8');
  for (const [path, ours] of system) {
    if (!main.includes(path)) throw new Error(`deploy/nginx/nginx.conf no longer names ${path}, which this helper replaces`);
    main = main.split(path).join(ours);
  }
  const directives = main.replace(/#[^\n]*/g, '');
  if (/\s\/(run|var|etc)\//.test(directives)) throw new Error('deploy/nginx/nginx.conf names a system path this helper does not replace');
  return main;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a GraphQL request through nginx reaches a replica and is answered. */
const answers = (endpoint: string) =>
  fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' }).then(
    (response) => response.ok,
    () => false,
  );

/** nginx in `dir` (made if need be) in front of `servers`; resolves once a GraphQL request through it is answered. */
export async function startNginx(dir: string, servers: readonly string[], timeoutMs = 10_000): Promise<Nginx> {
  const port = await freePort();
  mkdirSync(dir, { recursive: true });
  // nginx's workers drop to another user, who must reach the temp folders.
  chmodSync(dir, 0o777);
  const site = join(dir, 'order-graph.conf');
  writeFileSync(site, shippedSite(servers, port));
  // Beside the site file, as shipped: its `include order-graph.conf` is read from the main file's folder.
  writeFileSync(join(dir, 'nginx.conf'), shippedMain(dir));
  // In a process group of its own: stopping it stops its workers too (a killed master leaves them orphaned).
  const process = startProcess(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {}, undefined, { group: true });
  const origin = `http://127.0.0.1:${port}`;
  const endpoint = `${origin}/graphql`;
  for (const started = Date.now(); !(await answers(endpoint)); await sleep(25)) {
    if (process.child.exitCode !== null) throw new Error(`nginx exited (${process.child.exitCode}):\n${process.stderr()}`);
    if (Date.now() - started > timeoutMs) throw new Error(`nginx did not pass a request on within ${timeoutMs} ms:\n${process.stderr()}`);
  }
  const errorLog = () => readFileSync(join(dir, 'error.log'), 'utf8');
  async function reload(next: readonly string[]) {
    const master = process.child.pid!;
    const old = childrenOf(master).map((child) => child.pid);
    writeFileSync(site, shippedSite(next, port));
    process.child.kill('SIGHUP');
    // Done when new workers run and every old one is shutting down (its listening sockets closed) or gone.
    for (const started = Date.now(); ; await sleep(25)) {
      const workers = childrenOf(master);
      const replaced = workers.some((worker) => !old.includes(worker.pid));
      const leaving = (pid: number) => !isRunning(pid) || !!workers.find((worker) => worker.pid === pid)?.command.includes('shutting down');
      if (replaced && old.every(leaving)) return;
      if (Date.now() - started > timeoutMs) throw new Error(`nginx did not reload within ${timeoutMs} ms:\n${errorLog()}`);
    }
  }
  return { process, origin, endpoint, errorLog, reload };
}
