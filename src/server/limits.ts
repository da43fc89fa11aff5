/**
 * The request limits, in one place; docs/limits.md states each with its reason. The SDK's
 * largest document (WholeOrder, with its default page of orders) stays well inside every one
 * of them (test/integration/query-cost.test.ts holds its cost to a third of the limit).
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
  /**
   * An operation's cost, counted with its variables before it runs (src/server/cost.ts):
   * each field 1, and the fields under a list once per item its `first` asks for (literal,
   * variable or default alike). A whole order is 175, so a page of 16 whole orders (the
   * WholeOrder document, 2,822) passes with room and a page of 100 (17,522) is refused; 100
   * orders with their record fields (2,801) pass. The upstream calls are bounded apart, and
   * exactly, by the request's call budget.
   */
  maxCost: 10_000,
  /**
   * Selections the cost count visits, fragments expanded. A document within maxTokens has
   * fewer written out (each selection is a token at least): only fragments spread over and
   * over (a fragment bomb) reach it, and the count, exponential in them, stops there.
   */
  maxSelections: 2_000,
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
