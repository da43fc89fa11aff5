/**
 * The request limits, in one place; SECURITY.md states each with its reason. The SDK's
 * largest document (WholeOrder: depth 10, cost about 4,000, no aliases or directives)
 * stays well inside every one of them.
 */
export const LIMITS = {
  /** Field nesting, fragments followed. */
  maxDepth: 15,
  /** Aliases per operation: each alias is another resolver run. */
  maxAliases: 20,
  /** Lexical tokens per document: bounds parsing work before anything else. */
  maxTokens: 2_000,
  /** Directives per operation. */
  maxDirectives: 20,
  /** graphql-armor's cost: objects 2, scalars 1, × 1.5 per level of depth. */
  maxCost: 20_000,
  /**
   * Nesting of the request's `variables` and `extensions` (objects and lists): deeper is 400
   * BAD_USER_INPUT before anything reads them (coercion, the response cache's key) with a
   * recursion. No input of the schema nests more than four levels.
   */
  maxVariableDepth: 32,
  /** Request body, in bytes; larger is 413 before it is read. */
  maxRequestBodyBytes: 100_000,
  /** An upstream answer, in bytes; larger is cut off as UPSTREAM_ERROR. */
  maxUpstreamBodyBytes: 2_000_000,
} as const;
