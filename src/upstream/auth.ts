// The caller as the request presents it: the bearer, and its JWT's expiry decoded (not verified).
import { hash } from 'node:crypto';
import { decodeJwt } from 'jose/jwt/decode';

/** The caller as the request presents it: the bearer, and whether its JWT `exp` has passed. */
export interface Auth {
  token: string | null;
  expired: boolean;
  /** Epoch ms of the JWT's `exp`; null when the bearer is not a JWT or has none. */
  expiresAt: number | null;
}

/**
 * Reads `Authorization: Bearer …`. The JWT is decoded, not verified (the upstream does
 * that): it only lets the gateway refuse an expired token without a round trip. A bearer
 * that is not a JWT is passed on for the upstream to judge.
 */
export function readAuth(header: string | null, nowMs = Date.now()): Auth {
  const match = header?.match(/^\s*Bearer\s+(\S+)\s*$/i);
  const token = match?.[1] ?? null;
  if (!token) return { token: null, expired: false, expiresAt: null };
  try {
    const { exp } = decodeJwt(token);
    const expiresAt = typeof exp === 'number' ? exp * 1000 : null;
    return { token, expired: expiresAt !== null && expiresAt <= nowMs, expiresAt };
  } catch {
    return { token, expired: false, expiresAt: null };
  }
}

const digests = new WeakMap<Auth, string>();

/** A bearer's SHA-256 (base64url): what tokenDigest gives for a request carrying it. */
export const bearerDigest = (token: string) => hash('sha256', token, 'base64url');

/**
 * The bearer's SHA-256 (base64url), where a caller must be recognised again without its token
 * being kept (the caller limits, the response cache): computed once per Auth, that is once per
 * request; null without a bearer.
 */
export function tokenDigest(auth: Auth): string | null {
  if (!auth.token) return null;
  let found = digests.get(auth);
  if (found === undefined) digests.set(auth, (found = bearerDigest(auth.token)));
  return found;
}
