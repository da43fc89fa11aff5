// Running the order-graph CLI as a customer does (its own process, over real HTTP, on a pipe or a terminal), and a proxy to put in its way.
import { spawn } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { listen } from './harness.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Written to stdin, which is then closed (closed at once when absent: nothing is piped). */
  stdin?: string;
}

/**
 * The compiled CLI, as the `order-graph` command runs (tsc's output of src/cli/, in dist/: the
 * files that run it call buildDist() first). Compiled, a run costs a third of the CPU of one
 * through tsx; `npm run -s order`, tsx and all, is run once in cli.test.ts.
 */
const CLI = [process.execPath, 'dist/src/cli/order.js'];

/** The environment of a run: this one's, without what the CLI would pick up from it unasked. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['ORDER_GRAPH_ENDPOINT', 'ORDER_GRAPH_PASSWORD', 'COLUMNS']) if (!(name in env)) delete result[name];
  return { ...result, ...env };
}

/** The CLI on pipes: stdin a pipe, stdout and stderr captured. */
export function startOrder(args: readonly string[], { env = {}, stdin = '' }: StartOptions = {}) {
  const child = spawn(CLI[0]!, [...CLI.slice(1), ...args], { cwd: ROOT, env: childEnv(env) });
  // A command that exits without reading its stdin (a usage error) closes the pipe first: EPIPE, nothing to report.
  child.stdin.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  child.stdin.end(stdin);
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const done = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ...output }));
  });
  return { child, output, done };
}

export const order = (args: readonly string[], options?: StartOptions): Promise<Run> => startOrder(args, options).done;

const quoted = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

/**
 * The CLI on a pseudo-terminal (util-linux `script`), as a person at a terminal runs it:
 * `screen` is everything the terminal received (the CLI's stdout and stderr, and the
 * terminal's own echo of what was typed, were echo on); `type` is the keyboard.
 */
export function startOrderOnTerminal(args: readonly string[], env: Record<string, string> = {}) {
  const command = [...CLI, ...args].map(quoted).join(' ');
  const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd: ROOT, env: childEnv({ SHELL: '/bin/sh', ...env }) });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  const done = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  return { child, screen: () => screen, type: (keys: string) => child.stdin.write(keys), done };
}

/** Resolves once the text shows up in the output (checked every 20 ms); the timeout is only a backstop. */
export async function until(read: () => string, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
  for (const started = Date.now(); ; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const match = pattern.exec(read());
    if (match) return match;
    if (Date.now() - started > timeoutMs) throw new Error(`no ${pattern} within ${timeoutMs} ms in:\n${read()}`);
  }
}

/** One request the proxy received: the GraphQL operation it names, and whether its connection has closed. */
export interface Seen {
  operation: string;
  closed: boolean;
}

/** Answers a request itself (returns true) or lets it through to the gateway (false). */
export type Intercept = (seen: Seen, request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * An HTTP proxy in front of a gateway endpoint: each request is passed through unless
 * `intercept` answers it, so a test can make one answer huge or one stream go silent while
 * the rest (the login, the summary) is the real gateway's.
 */
export async function startFront(target: string, intercept: Intercept) {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation = /\b(query|mutation|subscription)\s+(\w+)/.exec(body.toString())?.[2] ?? '';
      const entry: Seen = { operation, closed: false };
      seen.push(entry);
      response.on('close', () => (entry.closed = true));
      if (intercept(entry, request, response)) return;
      const upstream = httpRequest(new URL(request.url ?? '/', target), { method: request.method, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      upstream.on('error', () => response.destroy());
      response.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  const origin = await listen(server);
  return {
    endpoint: `${origin}/graphql`,
    seen,
    count: (operation: string) => seen.filter((entry) => entry.operation === operation).length,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
