// TokenSet: the tokens a login or a refresh returns, with their expiry times.
import type { TokenSetResolvers } from '../__generated__/resolvers-types.js';
import { readable } from '../../upstream/shapes.js';
import { epochToDateTime } from '../../upstream/values.js';

export const TokenSet: TokenSetResolvers = {
  accessTokenExpiresAt: ({ accessExpiration }) => {
    const at = epochToDateTime(accessExpiration);
    if (!at) throw new Error('accessExpiration was accepted but cannot be read');
    return at;
  },
  idToken: ({ idToken }) => idToken ?? null,
  idTokenExpiresAt: ({ idExpiration }) => epochToDateTime(readable(idExpiration)),
};
