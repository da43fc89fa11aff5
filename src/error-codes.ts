// The error codes alone, without the error classes: the SDK imports them into frontends,
// which must not get the server's GraphQLError subclasses (nor Node's types with them).

/** The codes clients switch on (`extensions.code`) for a field's failure: a contract (docs/ARCHITECTURE.md, Errors). */
export const ERROR_CODES = [
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_AVAILABLE',
  'BAD_USER_INPUT',
  'RATE_LIMITED',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_ERROR',
  'UPSTREAM_BUDGET_EXCEEDED',
  'INTERNAL_SERVER_ERROR',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
