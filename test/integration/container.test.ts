// The Dockerfile, without a Docker engine (none runs on these machines): linted with a
// maintained linter, checked against the rules it must keep, and its steps run as it runs
// them: the build stage's build, the production install in a clean folder, then the image's
// command as PID 1 of its own process namespace, as an unprivileged user, on files it cannot
// write, probed with the image's HEALTHCHECK and stopped with SIGTERM.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { demoToken } from '../helpers/demo.js';
import { execute, graphqlClient } from '../helpers/harness.js';
import { childrenOf, isRunning, killStarted, PROJECT_PATH, ROOT, startProcess } from '../helpers/process.js';

const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

/** The Dockerfile's instructions, continuation lines joined, by stage. */
function stages() {
  const instructions = DOCKERFILE.replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.trim() && !line.trim().startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.trim().split(/\s+/);
      return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
    });
  const result: { from: string; name: string | undefined; steps: typeof instructions }[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [image, as, name] = instruction.args.split(/\s+/);
      result.push({ from: image!, name: as?.toUpperCase() === 'AS' ? name : undefined, steps: [] });
    } else {
      result.at(-1)?.steps.push(instruction);
    }
  }
  return result;
}
const exec = (args: string) => JSON.parse(args) as string[];
const [build, dependencies, runtime] = stages();
const only = (steps: { keyword: string; args: string }[], keyword: string) => steps.filter((s) => s.keyword === keyword).map((s) => s.args);

describe('the Dockerfile', () => {
  it('passes the linter (dockerfile-utils)', () => {
    const output = execFileSync('node', [join(ROOT, 'node_modules/dockerfile-utils/bin/dockerfile-utils'), 'lint', 'Dockerfile'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: PROJECT_PATH },
    });
    expect(output.trim()).toBe('');
  });

  it('keeps its rules: Node 24, multi-stage, production dependencies and compiled output only, non-root, exec-form node as PID 1, a health check', () => {
    expect(DOCKERFILE).toMatch(/^ARG NODE_IMAGE=node:24[-\w.]*$/m);
    expect([build?.name, dependencies?.name, runtime?.name]).toEqual(['build', 'production-dependencies', undefined]);
    expect(stages().every((stage) => stage.from === '${NODE_IMAGE}')).toBe(true);
    expect(only(dependencies!.steps, 'RUN')).toEqual([expect.stringMatching(/^npm ci --omit=dev --engine-strict /)]);
    expect(only(runtime!.steps, 'COPY')).toEqual([
      '--from=production-dependencies /app/node_modules ./node_modules',
      '--from=build /app/dist ./dist',
    ]);
    expect(only(runtime!.steps, 'USER')).toEqual(['node']);
    expect(only(runtime!.steps, 'ENV')[0]).toContain('NODE_ENV=production');
    const [cmd] = only(runtime!.steps, 'CMD');
    expect(exec(cmd!)).toEqual(['node', 'dist/src/tools/start.mjs']);
    expect(only(runtime!.steps, 'ENTRYPOINT')).toEqual([]);
    const [healthcheck] = only(runtime!.steps, 'HEALTHCHECK');
    expect(healthcheck).toMatch(/ CMD \["node", /);
    expect(readFileSync(join(ROOT, '.dockerignore'), 'utf8')).toMatch(/^\*$/m);
  });
});

describe('the Dockerfile’s steps, run as it runs them', () => {
  let simulator: Simulator;
  let work: string;
  beforeAll(async () => {
    simulator = await startSimulator({ latencyMs: 300 });
    work = mkdtempSync(join(tmpdir(), 'order-graph-image-'));
    chmodSync(work, 0o755);
  });
  afterAll(async () => {
    await simulator?.close();
    rmSync(work, { recursive: true, force: true });
  });
  afterEach(killStarted);

  it(
    'build stage → production install → node as PID 1, unprivileged, read-only: healthy, serves, drains on SIGTERM',
    { timeout: 120_000 },
    () => {
      // The build stage: what its COPY lines copy (from the checkout, as the build context has
      // them), its dependencies (the checkout's, standing in for its `npm ci`), and its last RUN
      // line as written.
      const buildDir = join(work, 'build');
      for (const copy of only(build!.steps, 'COPY')) {
        const [destination, ...sources] = copy.split(/\s+/).reverse();
        for (const source of sources) {
          const target = destination!.endsWith('/') ? join(buildDir, destination!, basename(source)) : join(buildDir, destination!);
          cpSync(join(ROOT, source), target, {
            recursive: true,
            filter: (path) => !/\/(node_modules|dist)(\/|$)/.test(path.slice(ROOT.length)),
          });
        }
      }
      symlinkSync(join(ROOT, 'node_modules'), join(buildDir, 'node_modules'));
      const buildStep = only(build!.steps, 'RUN').at(-1)!;
      expect(buildStep).toBe('node src/tools/build.mjs');
      execFileSync('sh', ['-c', buildStep], { cwd: buildDir, env: { PATH: PROJECT_PATH }, stdio: 'pipe' });
      // The order-tracker page is part of the image, and so are its trusted documents.
      expect(existsSync(join(buildDir, 'dist/tracker/index.html'))).toBe(true);
      expect(existsSync(join(buildDir, 'dist/examples/order-tracker/src/gql/persisted-documents.json'))).toBe(true);

      // The production-dependencies stage: package files only, then its RUN line on Node 24.
      const depsDir = join(work, 'deps');
      for (const path of ['package.json', 'package-lock.json']) cpSync(join(ROOT, path), join(depsDir, path));
      const [installStep] = only(dependencies!.steps, 'RUN');
      // From npm's cache where it has the packages (an image build would fetch them).
      const npmEnv = { PATH: PROJECT_PATH, HOME: process.env.HOME ?? work, npm_config_prefer_offline: 'true' };
      execFileSync('sh', ['-c', installStep!], { cwd: depsDir, env: npmEnv, stdio: 'pipe' });
      const installed = execFileSync('npm', ['ls', '--omit=dev', '--depth=0', '--parseable'], {
        cwd: depsDir,
        env: { PATH: PROJECT_PATH },
        encoding: 'utf8',
      });
      expect(installed).not.toMatch(/node_modules\/(tsx|typescript|vitest|esbuild|node)$/m);

      // The final image: its two COPY lines, owned by root and not writable by the user it runs as.
      const appDir = join(work, 'app');
      // Moved, not copied: the stages' folders are not used again.
      mkdirSync(appDir);
      renameSync(join(depsDir, 'node_modules'), join(appDir, 'node_modules'));
      renameSync(join(buildDir, 'dist'), join(appDir, 'dist'));
      execFileSync('chmod', ['-R', 'a-w,a+rX', appDir]);
      return runImage(appDir);
    },
  );

  async function runImage(appDir: string) {
    const env = Object.fromEntries(
      only(runtime!.steps, 'ENV')[0]!
        .split(/\s+/)
        .map((pair) => pair.split('=') as [string, string]),
    );
    const [command, ...args] = exec(only(runtime!.steps, 'CMD')[0]!);
    // PID 1 of a new process namespace, as the image's non-root user would be.
    const started = startProcess(
      'unshare',
      ['--pid', '--fork', '--mount-proc', 'setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', command!, ...args],
      { ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ALLOWED_HOSTS: 'localhost', TRACKER: 'on', ...simulator.urls },
      appDir,
    );
    const [, url] = await started.output(/Order Graph is listening at (http:\/\/\S+)/);
    const port = new URL(url!).port;
    // unshare → setpriv execs node, the launcher, which execs node with the heap flags on the
    // compiled entry: the server is unshare's child, PID 1 inside.
    const [server] = childrenOf(started.child.pid!);
    expect(`${command} ${args.join(' ')}`).toBe('node dist/src/tools/start.mjs');
    expect(server!.command).toMatch(
      /^node --max-semi-space-size=\d+ --heap-growing-percent=50( --max-old-space-size=\d+)? dist\/src\/server\/main\.js$/,
    );
    expect(readFileSync(`/proc/${server!.pid}/status`, 'utf8')).toMatch(/^NSpid:\s+\d+\s+1$/m);

    const healthcheck = exec(only(runtime!.steps, 'HEALTHCHECK')[0]!.split(' CMD ')[1]!);
    const probe = () => {
      try {
        execFileSync(healthcheck[0]!, healthcheck.slice(1), { env: { PATH: PROJECT_PATH, PORT: port }, stdio: 'pipe' });
        return 0;
      } catch (error) {
        return (error as { status: number }).status;
      }
    };
    expect(probe()).toBe(0);
    // TRACKER=on serves the page the build stage made.
    const tracker = await fetch(`${new URL(url!).origin}/tracker/`);
    expect([tracker.status, tracker.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    await tracker.arrayBuffer();

    const token = await demoToken(simulator, 'ready@demo.test');
    const inFlight = execute(graphqlClient(url!, token), WholeOrderDocument);
    await new Promise((resolve) => setTimeout(resolve, 150));
    process.kill(server!.pid, 'SIGTERM');
    const { data, errors } = await inFlight;
    expect(errors).toEqual([]);
    expect(data?.me?.orders?.[0]?.vehicle?.vin).toHaveLength(17);
    expect(await started.exited).toBe(0);
    expect(isRunning(server!.pid)).toBe(false);
    expect(probe()).toBe(1);
  }
});
