// Sealing what the gateway keeps of a customer's secrets (refresh and access tokens, each target's
// address): AES-256-GCM, a random 12-byte IV per value, and the key's id in the sealed text, so
// NOTIFY_TOKEN_KEYS can rotate (the first key seals, every key opens). The key id and the
// customer id are the GCM's additional data: a value moved into another customer's record, or
// given another key id, fails to open, as a value changed by one bit does.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { CustomerRecord, TargetAddress, TokenKey } from './contracts.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** AES-256's key. */
const KEY_BYTES = 32;

/** A sealed value that cannot be opened: unknown key, tampered, another customer's, not a sealed value at all. The message never holds the value. */
export class VaultError extends Error {
  constructor(reason: string) {
    super(`sealed value not opened: ${reason}`);
    this.name = 'VaultError';
  }
}

export interface Vault {
  /** `plain` sealed for `customerId` with the first key. */
  seal(customerId: string, plain: string): string;
  /** The plain text; throws a VaultError when `sealed` is not a value sealed for `customerId` by one of the keys. */
  open(customerId: string, sealed: string): string;
  /** Whether `sealed` was sealed with a key other than the first (re-seal it at the next write). */
  stale(sealed: string): boolean;
}

const additionalData = (keyId: string, customerId: string) => Buffer.from(`${VERSION}.${keyId}.${customerId}`, 'utf8');

export function createVault(keys: readonly TokenKey[]): Vault {
  const [first] = keys;
  if (!first) throw new Error('the vault needs a key');
  // The ids are NOTIFY_TOKEN_KEYS's (config/notifications.ts checks them): no dot, which separates the parts.
  for (const { id, key } of keys) if (key.byteLength !== KEY_BYTES || id.includes('.')) throw new Error(`key ${id} is not an AES-256 key`);
  const byId = new Map(keys.map(({ id, key }) => [id, key]));
  return {
    seal(customerId, plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', first.key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(additionalData(first.id, customerId));
      const text = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, first.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), text.toString('base64url')].join('.');
    },
    open(customerId, sealed) {
      const parts = sealed.split('.');
      if (parts.length !== 5 || parts[0] !== VERSION) throw new VaultError('not a sealed value');
      const [, keyId, iv, tag, text] = parts as [string, string, string, string, string];
      const key = byId.get(keyId);
      if (!key) throw new VaultError('its key is not in NOTIFY_TOKEN_KEYS');
      const ivBytes = Buffer.from(iv, 'base64url');
      const tagBytes = Buffer.from(tag, 'base64url');
      if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new VaultError('not a sealed value');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
        decipher.setAAD(additionalData(keyId, customerId));
        decipher.setAuthTag(tagBytes);
        return Buffer.concat([decipher.update(Buffer.from(text, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new VaultError('changed, or sealed for another customer');
      }
    },
    stale: (sealed) => sealed.split('.', 2)[1] !== first.id,
  };
}

const base64url = z.string().regex(/^[A-Za-z0-9_-]+$/);
const addressShape = z.discriminatedUnion('channel', [
  z.strictObject({
    channel: z.literal('WEB_PUSH'),
    endpoint: z.string(),
    keys: z.strictObject({ p256dh: base64url, auth: base64url }),
  }),
  z.strictObject({ channel: z.literal('EMAIL'), email: z.string() }),
  z.strictObject({ channel: z.literal('WEBHOOK'), url: z.string(), secret: z.string() }),
]);

export const sealAddress = (vault: Vault, customerId: string, address: TargetAddress) => vault.seal(customerId, JSON.stringify(address));

/** A target's address, opened and checked; throws a VaultError when it does not open or is no address. */
export function openAddress(vault: Vault, customerId: string, sealed: string): TargetAddress {
  let value: unknown;
  try {
    value = JSON.parse(vault.open(customerId, sealed));
  } catch (error) {
    if (error instanceof VaultError) throw error;
    throw new VaultError('not an address');
  }
  const address = addressShape.safeParse(value);
  if (!address.success) throw new VaultError('not an address');
  return address.data;
}

/**
 * `record` with each value sealed by a key other than the first sealed again with the first:
 * what a rotation of NOTIFY_TOKEN_KEYS needs of every record before the old key goes. A value
 * that does not open is left as it is (its reader finds that out).
 */
export function resealed(vault: Vault, record: CustomerRecord): CustomerRecord {
  const { customerId } = record;
  const again = (sealed: string) => {
    if (!vault.stale(sealed)) return sealed;
    try {
      return vault.seal(customerId, vault.open(customerId, sealed));
    } catch (error) {
      if (error instanceof VaultError) return sealed;
      throw error;
    }
  };
  return {
    ...record,
    refreshToken: again(record.refreshToken),
    accessToken: record.accessToken === null ? null : again(record.accessToken),
    targets: record.targets.map((target) => ({ ...target, sealed: again(target.sealed) })),
  };
}
