// Reading the caller's bearer token (src/upstream/auth.ts): the scheme, an expired JWT, and
// tokens it cannot decode left for the upstream to judge.
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { readAuth } from '../../src/upstream/auth.js';

const jwt = (exp: number) =>
  new SignJWT({ sub: 'u1' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode('k'.repeat(32)));

describe('readAuth', () => {
  const now = Date.UTC(2026, 0, 1);
  const nowSeconds = now / 1000;

  it('finds no token without a Bearer header', () => {
    expect(readAuth(null, now)).toEqual({ token: null, expired: false, expiresAt: null });
    expect(readAuth('Basic dXNlcjpwYXNz', now)).toEqual({ token: null, expired: false, expiresAt: null });
    expect(readAuth('Bearer ', now)).toEqual({ token: null, expired: false, expiresAt: null });
  });

  it('reads the scheme in any case', async () => {
    const token = await jwt(nowSeconds + 60);
    expect(readAuth(`bearer ${token}`, now)).toEqual({ token, expired: false, expiresAt: (nowSeconds + 60) * 1000 });
  });

  it('marks a JWT whose exp has passed as expired', async () => {
    const token = await jwt(nowSeconds - 1);
    expect(readAuth(`Bearer ${token}`, now)).toEqual({ token, expired: true, expiresAt: (nowSeconds - 1) * 1000 });
  });

  it('passes on a token it cannot decode, or one without exp, for the upstream to judge', () => {
    expect(readAuth('Bearer opaque-token', now)).toEqual({ token: 'opaque-token', expired: false, expiresAt: null });
    const noExp = new UnsecuredJWT({ sub: 'u1' }).encode();
    expect(readAuth(`Bearer ${noExp}`, now)).toEqual({ token: noExp, expired: false, expiresAt: null });
  });
});
