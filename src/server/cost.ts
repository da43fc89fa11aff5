// The query cost limit: what an operation will fetch, counted with its variables before it runs.
import {
  getNullableType,
  GraphQLError,
  isListType,
  Kind,
  type DocumentNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  visit,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { LIMITS } from './limits.js';

/**
 * How many items a list field returns for the cost: its `first` argument, from the literal,
 * the variable or the schema's default alike (graphql-js coerced them all to `args`). A list
 * without a page size counts once: its length is the upstream's (an order's few addresses,
 * payments, fees), not the caller's choice. A negative `first` fetches nothing (the resolver
 * refuses it).
 */
function pageSize(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): number {
  if (!isListType(getNullableType(field.type))) return 1;
  return typeof args.first === 'number' ? Math.max(0, args.first) : 1;
}

/** Each field counts 1, and its selection once per item of the page it returns. */
const fieldCost: ComplexityEstimator = ({ field, args, childComplexity }) => 1 + pageSize(field, args) * childComplexity;

// graphql-query-complexity's error when the count reaches `maxQueryNodes`.
const NODE_LIMIT_MESSAGE = 'Query exceeds the maximum allowed number of nodes.';
const TOO_MANY_SELECTIONS = Symbol('too many selections');
type Count = number | typeof TOO_MANY_SELECTIONS;

/** The operation and the document's fragments: another operation of it never runs with it. */
const operationAndFragments = (document: DocumentNode, operation: OperationDefinitionNode) => [
  operation,
  ...document.definitions.filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION),
];

/**
 * The operation's cost with these variables, or TOO_MANY_SELECTIONS when the count stopped
 * at LIMITS.maxSelections.
 */
function count(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Count {
  try {
    return getComplexity({
      schema,
      query: { kind: Kind.DOCUMENT, definitions: operationAndFragments(document, operation) },
      variables,
      estimators: [fieldCost],
      // The library throws when it has visited this many: maxSelections are allowed.
      maxQueryNodes: LIMITS.maxSelections + 1,
    });
  } catch (error) {
    if (error instanceof GraphQLError && error.message === NODE_LIMIT_MESSAGE) return TOO_MANY_SELECTIONS;
    throw error;
  }
}

/**
 * The variables the count reads: those given to a `first` argument (the estimator's page
 * size) or to @include/@skip (which drop a selection). No other value changes the cost.
 */
function countedVariables(document: DocumentNode, operation: OperationDefinitionNode): string[] {
  const names = new Set<string>();
  for (const definition of operationAndFragments(document, operation)) {
    visit(definition, {
      Argument({ name, value }) {
        if (name.value === 'first' && value.kind === Kind.VARIABLE) names.add(value.name.value);
      },
      Directive({ name, arguments: args }) {
        if (name.value !== 'include' && name.value !== 'skip') return;
        for (const { value } of args ?? []) if (value.kind === Kind.VARIABLE) names.add(value.name.value);
      },
    });
  }
  return [...names];
}

// Counted costs by operation (yoga keeps parsed documents), then by the values of the
// variables the count reads: the SDK's documents are counted once, a page once per size.
const costs = new WeakMap<OperationDefinitionNode, { variables: string[]; byValues: Map<string, Count> }>();
/** Sizes kept per operation: a caller trying every `first` only makes it count again. */
const SIZES_KEPT = 32;

/** The operation's cost, from the cache when the variables it reads are the same. */
function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Count {
  let cached = costs.get(operation);
  if (!cached) {
    cached = { variables: countedVariables(document, operation), byValues: new Map() };
    costs.set(operation, cached);
  }
  // An absent variable (its default applies) is told apart from an explicit null.
  const key = cached.variables.map((name) => (Object.hasOwn(variables, name) ? JSON.stringify(variables[name]) : '-')).join(',');
  let cost = cached.byValues.get(key);
  if (cost === undefined) {
    cost = count(schema, document, operation, variables);
    if (cached.byValues.size >= SIZES_KEPT) cached.byValues.clear();
    cached.byValues.set(key, cost);
  }
  return cost;
}

/** The cost model, for the refusal message: a caller can work out what to ask for less of. */
const HOW = 'each field counts 1, and the fields under a list once per item its "first" asks for';

/**
 * Why the operation costs too much to run, or undefined. Call it with variables that have
 * been coerced without errors (a bad variable is BAD_USER_INPUT before this).
 */
export function costRefusal(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): string | undefined {
  const cost = operationCost(schema, document, operation, { ...variables });
  if (cost === TOO_MANY_SELECTIONS)
    return `Selection limit of ${LIMITS.maxSelections} exceeded: the operation has more once its fragments are expanded.`;
  if (cost > LIMITS.maxCost) return `Query cost limit of ${LIMITS.maxCost} exceeded, found ${cost}: ${HOW}.`;
  return undefined;
}

/** The operation's cost (for tests and measurements); undefined when it has too many selections to count. */
export function queryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> = {},
): number | undefined {
  const cost = count(schema, document, operation, variables);
  return cost === TOO_MANY_SELECTIONS ? undefined : cost;
}
