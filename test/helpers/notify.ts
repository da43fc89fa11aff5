// The notification settings of a test's gateways, in this process or a child's (notify-gateway.ts):
// the keys given (a record one replica seals, another opens), the poll interval, and the local
// receiver's loopback address allowed.
import type { NotifySettings } from '../../src/notify/contracts.js';
import { loadConfig } from '../../src/server/config.js';

export function notifySettings(keys: string, pollMs: number, overrides: Partial<NotifySettings> = {}): NotifySettings {
  const env = { NOTIFY_TOKEN_KEYS: keys, NOTIFY_POLL_INTERVAL_MS: String(pollMs), NOTIFY_ALLOW_PRIVATE_ADDRESSES: 'true' };
  return { ...loadConfig(env).notify!, ...overrides };
}
