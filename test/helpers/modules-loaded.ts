// Run by a test as its own process (node --import tsx): records every module the process
// resolves from the start, makes a gateway from the settings given as JSON (argv[2]) and asks it
// `{ notifications { enabled } }` (the settings must name the upstream), then prints the answer and the modules resolved, one JSON line.
import { registerHooks } from 'node:module';

const resolved: string[] = [];
registerHooks({
  resolve(specifier, context, next) {
    const found = next(specifier, context);
    resolved.push(found.url);
    return found;
  },
});

const { loadConfig } = await import('../../src/server/config.js');
const { createGateway } = await import('../../src/server/gateway.js');
const config = loadConfig(JSON.parse(process.argv[2]!) as Record<string, string>);
// In front of the upstream URLs given: the question makes no upstream call.
const gateway = createGateway({ ...config, upstreamUrls: config.upstreamUrls!, tracing: undefined });
const response = await gateway.yoga.fetch('http://127.0.0.1/graphql', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: '{ notifications { enabled } }' }),
});
const line = `${JSON.stringify({ answer: await response.json(), resolved })}\n`;
await gateway.close();
// Exits once the line is written: a pipe takes it in pieces.
process.stdout.write(line, () => process.exit(0));
