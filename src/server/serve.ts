// The server: the process entry (config → embedded simulator if needed → listen → graceful stop).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from './config.js';
import { createGateway } from './gateway.js';
import { createLogger } from './logger.js';
import type { Simulator } from '../simulator/server.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) console.error(`config: ${problem}`);
    process.exit(1);
  }
  const logger = createLogger(config.logLevel);

  let simulator: Simulator | undefined;
  // Loaded only when it is needed: a gateway in front of the real service never carries it.
  if (!config.upstreamUrls) simulator = await (await import('../simulator/server.js')).startSimulator({ host: '127.0.0.1' });
  const upstreamUrls = config.upstreamUrls ?? simulator!.urls;

  const demo = simulator?.customers.find((c) => c.username === 'ready@demo.test') ?? simulator?.customers[0];
  const demoLogin = demo && { username: demo.username, password: demo.password };
  const gateway = createGateway({ ...config, upstreamUrls, logger, demoLogin });
  const server = createServer(gateway.yoga);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A deeper accept queue than Node's 511, so a burst of new connections is not refused.
    server.listen({ port: config.port, host: config.host, backlog: 2048 }, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/graphql`;

  const banner = [`Order Graph is listening: GraphiQL at ${url}`];
  if (simulator) {
    banner.push('', 'No upstream URLs set: serving the embedded simulator. Demo logins:');
    for (const customer of simulator.customers) {
      banner.push(`  ${customer.username.padEnd(28)} ${customer.password.padEnd(20)} ${customer.description}`);
    }
    banner.push('', 'In GraphiQL: run the Login tab, put its accessToken in the WholeOrder tab\'s Authorization header, run WholeOrder.');
  } else {
    banner.push(`Upstream: ${Object.values(upstreamUrls).map((u) => new URL(u).origin).join(', ')}`);
  }
  console.log(banner.join('\n'));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    gateway.drain();
    const force = setTimeout(() => {
      logger.warn('in-flight requests did not finish in time; closing them');
      server.closeAllConnections();
    }, config.shutdownGraceMs);
    force.unref();
    server.close(async () => {
      gateway.close();
      await simulator?.close();
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error('Order Graph failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
