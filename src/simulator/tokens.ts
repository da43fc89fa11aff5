/**
 * The simulator's token issuer: HS256 JWTs (jose) for access and id tokens, opaque
 * single-use refresh tokens kept in memory. One instance per simulator.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { TokenSet, User } from '../upstream/models.js';

export const TOKEN_LIFETIME_SECONDS = 24 * 60 * 60;
const ISSUER = 'order-graph-simulator';

/** What a bearer turned out to be. `expired` tokens had a valid signature. */
export type AccessTokenCheck = { kind: 'valid'; userId: string } | { kind: 'expired'; userId: string } | { kind: 'invalid' };

export interface TokenIssuer {
  /** A fresh TokenSet for the user, with a new single-use refresh token. */
  issueTokenSet(user: User): Promise<TokenSet>;
  /** An access token for any user id; a negative lifetime makes an already-expired one. */
  issueAccessToken(userId: string, email: string | null, expiresInSeconds?: number): Promise<string>;
  /** Checks an access token: signature, issuer and token use, then expiry. */
  checkAccessToken(token: string): Promise<AccessTokenCheck>;
  /** The user a live refresh token belongs to, or null (unknown or already used). */
  refreshTokenOwner(token: string): string | null;
  /** Spends a refresh token: true when it was live (and is now used). */
  consumeRefreshToken(token: string): boolean;
  /** Revokes an access token (a sign-out, a password change): from now on it is refused as invalid. */
  revokeAccessToken(token: string): void;
}

interface VerifiedToken {
  userId: string;
  /** exp claim, epoch seconds. */
  expiresAt: number;
}

const MAX_VERIFIED_TOKENS = 10_000;

function expiryCheck({ userId, expiresAt }: VerifiedToken): AccessTokenCheck {
  // The same rule as jose's: expired once now >= exp (no clock tolerance).
  return Math.floor(Date.now() / 1000) >= expiresAt ? { kind: 'expired', userId } : { kind: 'valid', userId };
}

/** A signed JWT; an already-expired one (tests) looks issued a full lifetime before it expired. */
function signToken(key: Uint8Array, claims: Record<string, unknown>, subject: string, expiresInSeconds: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const expiresAt = now + expiresInSeconds;
  const issuedAt = expiresInSeconds > 0 ? now : expiresAt - TOKEN_LIFETIME_SECONDS;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(subject)
    .setIssuer(ISSUER)
    .setJti(randomUUID())
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(key);
}

/** The id token's claims: what the user record holds of the email and the names. */
function idTokenClaims(user: User): Record<string, unknown> {
  return {
    token_use: 'id',
    ...(user.email ? { email: user.email } : {}),
    email_verified: user.emailVerified ?? false,
    ...(user.firstName ? { given_name: user.firstName } : {}),
    ...(user.lastName ? { family_name: user.lastName } : {}),
  };
}

/** A verified access token, or why it is not one: its signature, issuer and use, then its expiry. */
async function verifyAccessToken(key: Uint8Array, token: string): Promise<VerifiedToken | Exclude<AccessTokenCheck, { kind: 'valid' }>> {
  try {
    const { payload } = await jwtVerify(token, key, { issuer: ISSUER, algorithms: ['HS256'] });
    if (payload.token_use !== 'access' || typeof payload.sub !== 'string') return { kind: 'invalid' };
    return { userId: payload.sub, expiresAt: payload.exp ?? Number.POSITIVE_INFINITY };
  } catch (error) {
    // jose checks the signature before the claims, so an expired token here is genuine.
    if (error instanceof joseErrors.JWTExpired) {
      const { payload } = error;
      if (payload.token_use === 'access' && payload.iss === ISSUER && typeof payload.sub === 'string') {
        return { kind: 'expired', userId: payload.sub };
      }
    }
    return { kind: 'invalid' };
  }
}

/** A token issuer signing with the given secret (any non-empty string) or a random one. */
export function createTokenIssuer(secret?: string): TokenIssuer {
  const key = secret ? new TextEncoder().encode(secret) : new Uint8Array(randomBytes(32));
  const refreshTokens = new Map<string, string>();
  const revoked = new Set<string>();
  // Verifying an HMAC costs ~150 µs; under benchmark load every request repeats the same few
  // tokens. A token whose signature checked once is the same token the next time.
  const verified = new Map<string, VerifiedToken>();
  const remember = (token: string, entry: VerifiedToken) => {
    if (verified.size >= MAX_VERIFIED_TOKENS) verified.clear();
    verified.set(token, entry);
  };

  const issueAccessToken = (userId: string, email: string | null, expiresInSeconds = TOKEN_LIFETIME_SECONDS) =>
    signToken(key, { token_use: 'access', ...(email ? { email } : {}) }, userId, expiresInSeconds);

  return {
    async issueTokenSet(user) {
      const issuedAt = Math.floor(Date.now() / 1000);
      const [accessToken, idToken] = await Promise.all([
        issueAccessToken(user.id, user.email ?? null),
        signToken(key, idTokenClaims(user), user.id, TOKEN_LIFETIME_SECONDS),
      ]);
      // Long and opaque, like the encrypted refresh tokens of the real identity provider.
      const refreshToken = randomBytes(192).toString('base64url');
      refreshTokens.set(refreshToken, user.id);
      const expiration = issuedAt + TOKEN_LIFETIME_SECONDS;
      return { accessToken, accessExpiration: expiration, idToken, idExpiration: expiration, refreshToken };
    },

    issueAccessToken,

    async checkAccessToken(token) {
      if (revoked.has(token)) return { kind: 'invalid' };
      const cached = verified.get(token);
      if (cached) return expiryCheck(cached);
      const verifiedNow = await verifyAccessToken(key, token);
      if ('kind' in verifiedNow) return verifiedNow;
      remember(token, verifiedNow);
      return { kind: 'valid', userId: verifiedNow.userId };
    },

    refreshTokenOwner(token) {
      return refreshTokens.get(token) ?? null;
    },

    consumeRefreshToken(token) {
      return refreshTokens.delete(token);
    },

    revokeAccessToken(token) {
      revoked.add(token);
    },
  };
}
