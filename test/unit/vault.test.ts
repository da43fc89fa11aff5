// The vault (src/notify/vault.ts): what it seals opens only for the customer it was sealed for,
// with a key it holds, unchanged; a new key first seals while the old ones still open.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createVault, openAddress, sealAddress, VaultError } from '../../src/notify/vault.js';

const key = (id: string) => ({ id, key: randomBytes(32) });
const TOKEN = 'refresh-token-of-customer-a';

/** What `open` throws, or undefined when it opens. */
function refusal(open: () => unknown): VaultError | undefined {
  try {
    open();
  } catch (error) {
    return error as VaultError;
  }
  return undefined;
}

describe('vault', () => {
  it('seals as v1.<kid>.<iv>.<tag>.<text>, a new IV each time, with no plain text in it', () => {
    const vault = createVault([key('k1')]);
    const one = vault.seal('customer-a', TOKEN);
    const two = vault.seal('customer-a', TOKEN);
    expect(one).toMatch(/^v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(one).not.toBe(two);
    expect(one).not.toContain(TOKEN);
    expect(Buffer.from(one.split('.')[4]!, 'base64url').toString('latin1')).not.toContain('refresh');
    expect([vault.open('customer-a', one), vault.open('customer-a', two)]).toEqual([TOKEN, TOKEN]);
  });

  it("refuses a value moved to another customer's record, and one whose key id was changed", () => {
    const vault = createVault([key('k1'), key('k2')]);
    const sealed = vault.seal('customer-a', TOKEN);
    expect(refusal(() => vault.open('customer-b', sealed))).toBeInstanceOf(VaultError);
    // The same bytes under the other key's id: that key does not open them either.
    expect(refusal(() => vault.open('customer-a', sealed.replace('.k1.', '.k2.')))).toBeInstanceOf(VaultError);
  });

  it('refuses any part changed by one character, and what is no sealed value; the error never holds the value', () => {
    const vault = createVault([key('k1')]);
    const sealed = vault.seal('customer-a', TOKEN);
    const parts = sealed.split('.');
    for (let at = 2; at < parts.length; at += 1) {
      const changed = [...parts];
      const text = changed[at]!;
      changed[at] = `${text.slice(0, 3)}${text[3] === 'A' ? 'B' : 'A'}${text.slice(4)}`;
      const error = refusal(() => vault.open('customer-a', changed.join('.')));
      expect(error, `part ${at}`).toBeInstanceOf(VaultError);
      expect(error!.message).not.toContain(text);
    }
    for (const value of ['', TOKEN, 'v1.k1.a.b', `v2${sealed.slice(2)}`, `${sealed}.more`])
      expect(
        refusal(() => vault.open('customer-a', value)),
        value,
      ).toBeInstanceOf(VaultError);
  });

  it('rotation: a new key put first seals; the old one still opens what it sealed, which reads as stale; without it, nothing it sealed opens', () => {
    const old = key('old');
    const fresh = key('new');
    const before = createVault([old]).seal('customer-a', TOKEN);
    const rotated = createVault([fresh, old]);
    expect(rotated.open('customer-a', before)).toBe(TOKEN);
    expect(rotated.stale(before)).toBe(true);
    const after = rotated.seal('customer-a', TOKEN);
    expect(after.split('.')[1]).toBe('new');
    expect(rotated.stale(after)).toBe(false);
    const dropped = createVault([fresh]);
    expect(dropped.open('customer-a', after)).toBe(TOKEN);
    expect(refusal(() => dropped.open('customer-a', before))?.message).toBe('sealed value not opened: its key is not in NOTIFY_TOKEN_KEYS');
  });

  it('an address opens as the address it was, checked; anything else sealed is no address', () => {
    const vault = createVault([key('k1')]);
    const address = { channel: 'WEBHOOK' as const, url: 'https://hooks.example.com/x', secret: 'whsec_abc' };
    expect(openAddress(vault, 'customer-a', sealAddress(vault, 'customer-a', address))).toEqual(address);
    expect(refusal(() => openAddress(vault, 'customer-b', sealAddress(vault, 'customer-a', address)))).toBeInstanceOf(VaultError);
    for (const plain of ['not json', '{"channel":"SMS","to":"+1"}', '{"channel":"EMAIL"}'])
      expect(
        refusal(() => openAddress(vault, 'customer-a', vault.seal('customer-a', plain))),
        plain,
      ).toBeInstanceOf(VaultError);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => createVault([{ id: 'k1', key: randomBytes(16) }])).toThrow('not an AES-256 key');
    expect(() => createVault([])).toThrow('needs a key');
  });
});
