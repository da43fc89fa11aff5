// docs/configuration.md against the settings schema (src/server/config.ts, its source): the
// committed page is what `npm run docs:config` writes, so every variable the gateway reads is
// on it once, with the schema's default and description; and the generator refuses a setting
// it could not write (no description, no section).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { envSchema, loadConfig } from '../../src/server/config.js';
import { committedConfigPage, configPage, setting } from '../helpers/config-doc.js';

describe('docs/configuration.md', () => {
  it('is what npm run docs:config writes from the schema (run it and commit the page)', () => {
    expect(committedConfigPage()).toBe(configPage());
  });

  it("states each default as the schema has it: a value the setting takes, read back as loadConfig's", () => {
    const settings: Record<string, z.ZodType> = envSchema.shape;
    const wrong = Object.entries(settings).flatMap(([name, schema]) => {
      const schemaDefault = schema.safeParse(undefined).data;
      if (schemaDefault === undefined) return [];
      const stated = /^`([^`]+)`/.exec(setting(name).default)?.[1];
      // A switch's default is written on/off; an empty list, none.
      const read = stated === undefined ? (setting(name).default === 'none' ? [] : undefined) : schema.safeParse(stated).data;
      return JSON.stringify(read) === JSON.stringify(schemaDefault) ? [] : [`${name}: ${setting(name).default}`];
    });
    expect(wrong).toEqual([]);
    const defaults = loadConfig({});
    expect([setting('UPSTREAM_TIMEOUT_MS').default, defaults.upstreamTimeoutMs]).toEqual(['`5000`', 5000]);
    expect([setting('HISTORY_BYTES').default, defaults.history?.totalBytes]).toEqual(['`33554432` (32 MiB)', 32 * 1024 * 1024]);
  });

  it('writes what an unset variable without a default means, and what each variable takes', () => {
    expect(setting('REDIS_URL').default).toBe('unset');
    expect(setting('GRAPHIQL').default).toBe('`on` (`off` in production)');
    expect(setting('TRUSTED_PROXIES').default).toBe('none');
    expect(setting('SUBGRAPH')).toMatchObject({ default: '`off`', takes: '`on`, `off`' });
    expect(setting('UPSTREAM_TIMEOUT_MS').takes).toBe('1–600000 ms');
    expect(setting('LOGIN_FAILURE_DELAY_S').takes).toBe('1–86400 seconds');
    expect(setting('HISTORY_CUSTOMER_BYTES').takes).toBe('10000 bytes to 64 MiB');
    expect(setting('TRUSTED_DOCUMENTS').takes).toBe('`off`, `allow`, `only`');
    expect(setting('HOST').takes).toBe('');
  });

  it('cannot be written while a setting has no description, or is in no section', () => {
    const undescribed = envSchema.extend({ SUBGRAPH: z.string().optional() });
    expect(() => configPage(undescribed)).toThrow('SUBGRAPH has no description');
    const unplaced = envSchema.extend({ NEW_SETTING: z.string().optional().describe('A new one.') });
    expect(() => configPage(unplaced)).toThrow('NEW_SETTING is in no section of test/helpers/config-doc.ts');
  });
});
