// Debian's nginx running the shipped deploy/nginx/order-graph.conf, as a test starts it: the
// file itself, with only its replica addresses and its listen port put in place, in a
// prefix folder of the test's own (pid, logs, temp files), in the foreground.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startProcess, type Started } from './process.js';
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
}

/** The shipped file with our replicas (`host:port` each) in its upstream block, listening on `port` on loopback. */
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
  writeFileSync(join(dir, 'order-graph.conf'), shippedSite(servers, port));
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `${name}_temp_path ${join(dir, name)};`).join('\n  ');
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1;\npid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')} warn;\nevents { worker_connections 1024; }\nhttp {\n  access_log off;\n  ${temp}\n  include ${join(dir, 'order-graph.conf')};\n}\n`,
  );
  // In a process group of its own: stopping it stops its workers too (a killed master leaves them orphaned).
  const process = startProcess(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {}, undefined, { group: true });
  const origin = `http://127.0.0.1:${port}`;
  const endpoint = `${origin}/graphql`;
  for (const started = Date.now(); !(await answers(endpoint)); await sleep(25)) {
    if (process.child.exitCode !== null) throw new Error(`nginx exited (${process.child.exitCode}):\n${process.stderr()}`);
    if (Date.now() - started > timeoutMs) throw new Error(`nginx did not pass a request on within ${timeoutMs} ms:\n${process.stderr()}`);
  }
  return { process, origin, endpoint };
}
