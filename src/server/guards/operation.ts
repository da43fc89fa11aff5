// Guards on the operation, before it runs: one credential mutation, sane @stream counts, variables that fit, a cost within the limit.
import {
  BREAK,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  NoSchemaIntrospectionCustomRule,
  visit,
  type DirectiveNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type OperationDefinitionNode,
  type SelectionNode,
  type ValidationContext,
} from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { requestErrorExtensions, type RequestErrorCode } from '../../error-codes.js';
import { costRefusal } from '../cost.js';
import { usesDeferOrStream } from '../executor.js';

// The mutations that send credentials upstream: one per request, so a document cannot turn
// into twenty login attempts (aliases) or spend a refresh token on a result it throws away.
// Adding a notification target sends one too when it hands a refresh token over.
const CREDENTIAL_FIELDS = new Set(['login', 'refreshTokens']);
const HANDING_OVER_FIELDS = new Set(['addWebPushTarget', 'addEmailTarget', 'addWebhookTarget']);

/** Whether a root field sends a credential upstream: login, refreshTokens, or an add that hands a refresh token over. */
const sendsCredential = (field: FieldNode) =>
  CREDENTIAL_FIELDS.has(field.name.value) ||
  (HANDING_OVER_FIELDS.has(field.name.value) && !!field.arguments?.some((argument) => argument.name.value === 'refreshToken'));

/** The operation's root fields that `counts`, aliases and fragments included. */
function countRootFields(
  context: ValidationContext,
  selections: readonly SelectionNode[],
  counts: (field: FieldNode) => boolean,
  seen = new Set<string>(),
): number {
  let count = 0;
  for (const selection of selections) {
    if (selection.kind === Kind.FIELD) count += counts(selection) ? 1 : 0;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += countRootFields(context, selection.selectionSet.selections, counts, seen);
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = context.getFragment(selection.name.value);
      if (fragment) count += countRootFields(context, fragment.selectionSet.selections, counts, seen);
    }
  }
  return count;
}

/** A @stream's `initialCount`, from its literal or (given them) the variables; undefined for any other directive. */
function streamCount(node: DirectiveNode, variables?: Readonly<Record<string, unknown>> | null): unknown {
  if (node.name.value !== 'stream') return undefined;
  const value = node.arguments?.find((argument) => argument.name.value === 'initialCount')?.value;
  if (value?.kind === Kind.INT) return Number(value.value);
  if (value?.kind === Kind.NULL) return null;
  return value?.kind === Kind.VARIABLE ? variables?.[value.name.value] : undefined;
}

/** Whether a @stream of the document asks for an initialCount that is negative, or null from a variable (graphql-tools would throw a bare Error). */
function hasBadStreamCount(document: DocumentNode, variables: Readonly<Record<string, unknown>> | null | undefined): boolean {
  let bad = false;
  visit(document, {
    Directive(node) {
      const count = streamCount(node, variables);
      if (count !== null && (typeof count !== 'number' || count >= 0)) return;
      bad = true;
      return BREAK;
    },
  });
  return bad;
}

const NEGATIVE_STREAM_COUNT = '@stream(initialCount:) must be a whole number, 0 or more: it is how many items come in the first payload.';

/** More than one credential mutation, or a negative @stream count literal. */
const operationRule = (context: ValidationContext) => ({
  Directive(node: DirectiveNode) {
    const count = streamCount(node);
    if (count === null || (typeof count === 'number' && count < 0))
      context.reportError(
        new GraphQLError(NEGATIVE_STREAM_COUNT, { nodes: [node], extensions: { code: 'BAD_USER_INPUT' satisfies RequestErrorCode } }),
      );
  },
  OperationDefinition(node: OperationDefinitionNode) {
    const credentials = countRootFields(context, node.selectionSet.selections, sendsCredential);
    if (credentials <= 1) return;
    context.reportError(
      new GraphQLError(`One login, refreshTokens or refresh token handed over per request: this operation has ${credentials}.`, {
        nodes: [node],
        extensions: { code: 'CREDENTIAL_OPERATIONS_LIMIT' satisfies RequestErrorCode },
      }),
    );
  },
});

/**
 * Validation errors for more than one credential mutation or a negative @stream count literal,
 * and, with introspection off, for __schema and __type: every operation is validated through
 * here, over HTTP and WebSocket alike.
 */
export function useOperationRules({ introspection }: { introspection: boolean }): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(operationRule);
      if (!introspection) addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}

// What a stream of results (a subscription, @defer or @stream) can be sent as.
const STREAMABLE = /(^|,)\s*(\*\/\*|multipart\/(mixed|\*)|text\/(event-stream|\*))\s*(;|,|$)/i;

/** Variables that do not fit the operation: 400 BAD_USER_INPUT, whichever executor runs. */
function variableRefusal(
  { document, variableValues, schema }: ExecutionArgs,
  operation: OperationDefinitionNode,
): ExecutionResult | undefined {
  if (!operation.variableDefinitions?.length) return undefined;
  const { errors } = getVariableValues(schema, operation.variableDefinitions, variableValues ?? {}, { maxErrors: 10 });
  if (!errors) {
    // A literal is refused by validation; a count from a variable only now.
    if (!hasBadStreamCount(document, variableValues)) return undefined;
    return { errors: [createGraphQLError(NEGATIVE_STREAM_COUNT, { extensions: requestErrorExtensions('BAD_USER_INPUT') })] };
  }
  return {
    errors: errors.map(
      (error) => new GraphQLError(error.message, { nodes: error.nodes, extensions: requestErrorExtensions('BAD_USER_INPUT') }),
    ),
  };
}

/**
 * Why an operation must not run, found before it runs: an answer the client cannot take
 * (406), variables that do not fit (400 BAD_USER_INPUT, whichever executor runs), or a
 * cost past the limit (400 GRAPHQL_VALIDATION_FAILED, the code armor's cost limit gave).
 */
function refusal(args: ExecutionArgs): ExecutionResult | undefined {
  const { document, operationName, variableValues, schema, contextValue } = args;
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  const accept = (contextValue as { request?: Request }).request?.headers.get('accept');
  if (accept && !STREAMABLE.test(accept) && (operation.operation === 'subscription' || usesDeferOrStream(document))) {
    return {
      errors: [
        createGraphQLError('This operation answers with a stream: accept text/event-stream or multipart/mixed.', {
          extensions: requestErrorExtensions('NOT_ACCEPTABLE'),
        }),
      ],
    };
  }
  const badInput = variableRefusal(args, operation);
  if (badInput) return badInput;
  // Counted here rather than in validation (which yoga caches per document): with the
  // variables known, `first: $n` weighs what the same literal does.
  const tooCostly = costRefusal(schema, document, operation, variableValues);
  if (!tooCostly) return undefined;
  return { errors: [createGraphQLError(tooCostly, { extensions: requestErrorExtensions('GRAPHQL_VALIDATION_FAILED') })] };
}

/**
 * Before an operation runs: a subscription or @defer/@stream for a client that accepts no
 * stream is 406; variables are coerced, so a bad one is 400 BAD_USER_INPUT whichever
 * executor runs (graphql-jit reports them as an ordinary 200 result otherwise); the cost is
 * counted with the variables known.
 */
export function useOperationChecks(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refused = refusal(args);
      if (refused) setResultAndStopExecution(refused);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refused = refusal(args);
      if (refused) setResultAndStopExecution(refused);
    },
  };
}
