// Mutation: login and token refresh, both through the login throttle.
import type { MutationResolvers } from '../__generated__/resolvers-types.js';
import { BadUserInputError } from '../../errors.js';

function required(value: string, name: string): string {
  if (value.trim() === '') throw new BadUserInputError(`${name} must not be empty.`);
  return value;
}

export const Mutation: MutationResolvers = {
  login: (_parent, { username, password }, { operations, throttleLogin }) =>
    throttleLogin(required(username, 'username'), () => operations.login(username, required(password, 'password'))),
  refreshTokens: (_parent, { refreshToken }, { operations, throttleRefresh }) =>
    throttleRefresh(required(refreshToken, 'refreshToken'), () => operations.refreshTokens(refreshToken)),
};
