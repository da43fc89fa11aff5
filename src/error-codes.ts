// Every error code a client can see (`extensions.code`), each with what it means: the one list
// the server, the SDK, the SDL's description and the docs follow (test/unit/error-codes.test.ts
// holds them to it). A contract: add codes, never rename them. The codes alone, without the
// error classes: the SDK imports them into frontends, which must not get the server's
// GraphQLError subclasses (nor Node's types with them).

/**
 * A field's failure: the field is null, `errors` holds one entry with its path and this
 * code, and its siblings still arrive. A live stream's event carries them the same way.
 */
export const FIELD_ERRORS = {
  UNAUTHENTICATED:
    'No bearer token, or one whose `exp` has passed (no upstream call), or the upstream refused the credentials: a bad login or refresh token too. Ends a live stream: renew the tokens and subscribe again.',
  FORBIDDEN: 'The upstream refused the caller this (its 403).',
  NOT_AVAILABLE:
    'Not sent for a part whose stage the order has not reached: that part is null with no error, and `Order.availability` says when it comes. Kept for a 409 ORDER_STAGE_NOT_ELIGIBLE from an upstream call the contract gives no stage (today none does).',
  BAD_USER_INPUT:
    "The upstream rejected the request as invalid (its 400 or 422), or the gateway rejected an argument (an `orderId` that is not the caller's ends a live stream).",
  RATE_LIMITED:
    "The upstream's 429, too many failed logins or refused refreshes (not sent upstream), too many live streams, or orders too large to follow live (the stream ends); `retryAfterSeconds` says when to try again, when known.",
  UPSTREAM_TIMEOUT: "No upstream answer within UPSTREAM_TIMEOUT_MS or the request's deadline.",
  UPSTREAM_ERROR:
    'The upstream failed: a 5xx, a refused or reset connection, a body that is not the JSON its contract promises, or an id in it that no call may carry.',
  UPSTREAM_BUDGET_EXCEEDED:
    "The request had made its UPSTREAM_CALLS_PER_REQUEST upstream calls, so this field's was not made: ask for fewer orders at a time.",
  ANSWER_TOO_LARGE:
    'The upstream answers the request read and the answer built from them passed REQUEST_BYTES: the request ends, `data` null with this one error. Ask for fewer orders, or fewer fields, at a time. A live event past it is that event alone.',
  OVERLOADED:
    'The requests in flight hold as much memory as the gateway gives them (IN_FLIGHT_BYTES): a new request is refused before it runs (503 with `Retry-After`, `retryAfterSeconds`), and one holding far more than the others may end to make room (`data` null with this one error). Try again in a moment.',
  INTERNAL_SERVER_ERROR:
    'A bug (masked: "Unexpected error."), or the gateway short of resources (file handles), so the call could not be made (its message says so).',
} as const satisfies Record<string, string>;

/** The code of a field's failure: what a GatewayError carries. */
export type ErrorCode = keyof typeof FIELD_ERRORS;

/** The codes of a field's failure (FIELD_ERRORS), in the list's order. */
export const ERROR_CODES = Object.freeze(Object.keys(FIELD_ERRORS) as ErrorCode[]);

/**
 * A request refused before anything ran: no data, one error with this code, and this HTTP
 * status (to a client that accepts application/graphql-response+json; one that accepts only
 * application/json gets 200 for a document's errors: parse, validation, credential operations).
 */
export const REQUEST_ERRORS = {
  GRAPHQL_PARSE_FAILED: { status: 400, meaning: 'The document does not parse, or has more tokens than the token limit.' },
  GRAPHQL_VALIDATION_FAILED: {
    status: 400,
    meaning: 'The document is not valid against the schema, or goes past a query limit (depth, aliases, directives, cost, selections).',
  },
  OPERATION_RESOLUTION_FAILURE: {
    status: 400,
    meaning: 'No one operation to run: the document has none, or several and no `operationName` naming one of them.',
  },
  BAD_REQUEST: {
    status: 400,
    meaning:
      'Not a GraphQL request the gateway takes: no query, a body that is not a JSON object, a batch, parameters of the wrong type, `variables` or `extensions` that are not JSON; 405 for a mutation over GET or a method other than GET and POST.',
  },
  BAD_USER_INPUT: {
    status: 400,
    meaning: 'Variables that do not fit the operation (of the wrong type, nested too deep), or a negative `@stream(initialCount:)`.',
  },
  PERSISTED_QUERY_ONLY: {
    status: 400,
    meaning: 'A query where only trusted documents run (TRUSTED_DOCUMENTS=only): send the hash of a registered document instead.',
  },
  PERSISTED_QUERY_NOT_FOUND: { status: 400, meaning: 'A hash that is not one of the trusted documents.' },
  PERSISTED_QUERY_ID_REQUIRED: { status: 400, meaning: 'With trusted documents on, neither a query nor the hash of a trusted document.' },
  CREDENTIAL_OPERATIONS_LIMIT: {
    status: 400,
    meaning: 'More than one `login` or `refreshTokens` in an operation, aliases and fragments included: no upstream call.',
  },
  NOT_ACCEPTABLE: {
    status: 406,
    meaning:
      'A subscription or a `@defer`/`@stream` document from a client that accepts no stream (`text/event-stream`, `multipart/mixed`).',
  },
  REQUEST_ENTITY_TOO_LARGE: { status: 413, meaning: 'A request body larger than the limit.' },
  UNSUPPORTED_CONTENT_ENCODING: { status: 415, meaning: 'A compressed request body: nothing is inflated; send it uncompressed.' },
  RATE_LIMITED: {
    status: 429,
    meaning:
      "More of one caller's queries and mutations in flight than CALLER_OPERATIONS_IN_FLIGHT (any transport; `retryAfterSeconds`), or behind a trusted proxy more of the client address's requests in flight than MAX_CONNECTIONS_PER_ADDRESS.",
  },
  PREFLIGHT_REQUIRED: {
    status: 403,
    meaning:
      'A POST that a page of another site could send without a CORS preflight (a form, `text/plain`, no content type): send `application/json`, or one of the headers `x-graphql-yoga-csrf` or `apollo-require-preflight`.',
  },
  HOST_NOT_ALLOWED: {
    status: 421,
    meaning:
      'A `Host` that is none of ALLOWED_HOSTS (nor an IP address): the request was meant for another server, or a DNS-rebinding page sent it.',
  },
} as const satisfies Record<string, { status: number; meaning: string }>;

/** The code of a refused request. */
export type RequestErrorCode = keyof typeof REQUEST_ERRORS;

/** The codes of a refused request (REQUEST_ERRORS), in the list's order. */
export const REQUEST_ERROR_CODES = Object.freeze(Object.keys(REQUEST_ERRORS) as RequestErrorCode[]);

/** Any code the API sends. */
export type ApiErrorCode = ErrorCode | RequestErrorCode;

/** The `extensions` of a refused request: its code and the HTTP status the list gives it. */
export const requestErrorExtensions = (code: RequestErrorCode) => ({ code, http: { status: REQUEST_ERRORS[code].status } });
