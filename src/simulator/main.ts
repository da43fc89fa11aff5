/**
 * Standalone simulator process: `npm run simulator` (`node --import tsx src/simulator/main.ts`,
 * node itself under npm with no shell or launcher between, so Ctrl-C through npm ends it with 0),
 * and the benchmark's (its build, dist/src/simulator/main.js).
 * Environment: SIM_PORT (default 0), SIM_HOST (default 127.0.0.1), SIM_LATENCY_MS,
 * SIM_JITTER_MS, SIM_ADVANCE_EVERY_MS (default 60000: production@demo.test's order takes its
 * next stage every minute, as in `npm start`; 0: never). Prints one JSON line
 * `{"urls":{...},"customers":[...],"moving":{...}|null}` once listening; closes on
 * SIGTERM/SIGINT (a repeat, such as npm's of Ctrl-C, changes nothing) and exits 0. Serves the stats endpoint (`GET /__simulator/stats`, calls per operation;
 * `POST /__simulator/stats/reset`) that the benchmark reads, and, while the order moves,
 * `POST /__simulator/advance` (moves it at once).
 */
import { DEMO_ADVANCE_EVERY_MS, MAX_ADVANCE_EVERY_MS, startSimulator, type SimulatorOptions } from './server.js';

function readNumber(name: string, problems: string[], max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > max) {
    problems.push(`${name} must be an integer between 0 and ${max}, got "${raw}"`);
    return undefined;
  }
  return value;
}

const problems: string[] = [];
const options: SimulatorOptions = { host: process.env.SIM_HOST?.trim() || '127.0.0.1', statsEndpoint: true };
const port = readNumber('SIM_PORT', problems, 65_535);
const latencyMs = readNumber('SIM_LATENCY_MS', problems);
const jitterMs = readNumber('SIM_JITTER_MS', problems);
options.advanceEveryMs = readNumber('SIM_ADVANCE_EVERY_MS', problems, MAX_ADVANCE_EVERY_MS) ?? DEMO_ADVANCE_EVERY_MS;
if (port !== undefined) options.port = port;
if (latencyMs !== undefined) options.latencyMs = latencyMs;
if (jitterMs !== undefined) options.jitterMs = jitterMs;

if (problems.length > 0) {
  for (const problem of problems) process.stderr.write(`simulator: ${problem}\n`);
  process.exit(1);
}

try {
  const simulator = await startSimulator(options);
  process.stdout.write(`${JSON.stringify({ urls: simulator.urls, customers: simulator.customers, moving: simulator.moving })}\n`);

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void simulator.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} catch (error) {
  process.stderr.write(`simulator: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
