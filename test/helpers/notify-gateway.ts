// A gateway replica in a process of its own, for the notification test that kills one mid-delivery
// (node --import tsx test/helpers/notify-gateway.ts): in front of the upstream at
// NOTIFY_TEST_UPSTREAM (a simulator's URLs, JSON), sharing REDIS_URL, with the test's keys, poll
// interval and queue timing (NOTIFY_TEST_*). Prints its origin once it listens.
import type { UpstreamUrls } from '../../src/upstream/contract.js';
import { startGateway } from './harness.js';
import { notifySettings } from './notify.js';

const env = (name: string) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const pollMs = Number(env('NOTIFY_TEST_POLL_MS'));
const gateway = await startGateway({
  upstreamUrls: JSON.parse(env('NOTIFY_TEST_UPSTREAM')) as UpstreamUrls,
  redisUrl: env('REDIS_URL'),
  notify: notifySettings(env('NOTIFY_TEST_KEYS'), pollMs),
  notifyQueueTiming: JSON.parse(env('NOTIFY_TEST_QUEUE_TIMING')) as Record<string, number>,
});
process.stdout.write(`notify gateway at ${gateway.origin}\n`);
