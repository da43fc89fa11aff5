// The error codes alone, without the error classes: the SDK imports them into frontends,
// which must not get the server's GraphQLError subclasses (nor Node's types with them).

/** The codes clients switch on (`extensions.code`): a contract (docs/ARCHITECTURE.md, Errors). */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_AVAILABLE'
  | 'BAD_USER_INPUT'
  | 'RATE_LIMITED'
  | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_ERROR'
  | 'UPSTREAM_BUDGET_EXCEEDED'
  | 'INTERNAL_SERVER_ERROR';
