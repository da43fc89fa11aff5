// The SDK's tokens: login, one refresh shared by every refused call, and a document run again once its refused tokens are renewed.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { Variables } from 'graphql-request';
import { LoginDocument, RefreshTokensDocument, type TokenSetFieldsFragment } from './__generated__/graphql.js';
import { OrderClientError, type OrderResult } from './results.js';
import type { Send } from './transport.js';

/** The token set the API hands out; expirations are ISO 8601 UTC strings. */
export type Tokens = TokenSetFieldsFragment;

/** Whether the API refused the access token. */
export const isRefused = (result: OrderResult<unknown>) => result.errors.some((error) => error.extensions?.code === 'UNAUTHENTICATED');

export interface AuthOptions {
  /** Tokens from an earlier session, if any. */
  tokens?: Tokens | null;
  /** Called with every new token set (login, refresh). */
  onTokens?: (tokens: Tokens) => void;
}

export type Auth = ReturnType<typeof createAuth>;

/** The tokens a client holds, and the calls that take or renew them. */
export function createAuth(send: Send, { tokens: initialTokens = null, onTokens }: AuthOptions) {
  let tokens = initialTokens;
  let refreshing: Promise<Tokens> | null = null;

  function keep(next: Tokens): Tokens {
    tokens = next;
    onTokens?.(next);
    return next;
  }

  async function tokenMutation<T>(result: OrderResult<T>, pick: (data: T) => Tokens, what: string): Promise<Tokens> {
    if (!result.data || result.errors.length > 0) {
      const first = result.errors[0];
      throw new OrderClientError(first?.message ?? `${what} failed`, first?.extensions?.code ?? 'UNKNOWN', result.errors);
    }
    return keep(pick(result.data));
  }

  /** Renews the tokens; concurrent callers share one refresh. */
  function refresh(): Promise<Tokens> {
    const refreshToken = tokens?.refreshToken;
    if (!refreshToken) return Promise.reject(new OrderClientError('No refresh token: log in first', 'UNAUTHENTICATED'));
    refreshing ??= send(RefreshTokensDocument, { refreshToken }, tokens?.accessToken ?? null)
      .then((result) => tokenMutation(result, (data) => data.refreshTokens, 'Refreshing the tokens'))
      .finally(() => {
        refreshing = null;
      });
    return refreshing;
  }

  /**
   * Hands the refresh token over to someone else (the gateway's notifications): returns it,
   * once any renewal under way has ended, and forgets it, so this client never renews with it
   * again (the upstream's refresh tokens are single-use); null when it holds none. The access
   * token is kept: once it expires, log in again.
   */
  async function releaseRefreshToken(): Promise<string | null> {
    await refreshing?.catch(() => undefined);
    const refreshToken = tokens?.refreshToken || null;
    if (tokens) tokens = { ...tokens, refreshToken: '' };
    return refreshToken;
  }

  /** After a refusal of `usedToken`: whether there are newer tokens to try (renewing them if need be). */
  async function renewed(usedToken: string | null): Promise<boolean> {
    if (!tokens?.refreshToken) return false;
    // Another call may have renewed the tokens while this one was in flight.
    if (tokens.accessToken !== usedToken) return true;
    try {
      await refresh();
      return true;
    } catch {
      return false;
    }
  }

  /** Runs a document as the signed-in customer, renewing the tokens once if they were refused. */
  async function request<T, V extends Variables>(document: TypedDocumentNode<T, V>, variables?: V): Promise<OrderResult<T>> {
    const usedToken = tokens?.accessToken ?? null;
    const result = await send(document, variables, usedToken);
    if (!isRefused(result) || !(await renewed(usedToken))) return result;
    return send(document, variables, tokens!.accessToken);
  }

  return {
    /** The current tokens, or null before login. */
    get tokens() {
      return tokens;
    },
    async login(username: string, password: string): Promise<Tokens> {
      return tokenMutation(await send(LoginDocument, { username, password }, null), (data) => data.login, 'Login');
    },
    refresh,
    releaseRefreshToken,
    renewed,
    request,
  };
}
