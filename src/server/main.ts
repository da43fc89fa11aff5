// The server: the process entry. It checks the Node version before loading anything that
// could fail on an older one, then starts the gateway (serve.ts).
import { readFileSync } from 'node:fs';

// package.json sits two levels up both in the sources and in dist/ (the build copies it).
const { engines } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
const required = Number(/\d+/.exec(engines.node)?.[0]);
const running = Number(process.versions.node.split('.')[0]);
if (running < required) {
  console.error(`Order Graph needs Node.js ${required} or newer; this is Node.js ${process.versions.node}.`);
  process.exit(1);
}
await import('./serve.js');
