import fc from 'fast-check';
import {
  buildSchema,
  getNamedType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  print,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LoginDocument,
  MeDocument,
  OrderByIdDocument,
  OrderSummaryDocument,
  RefreshTokensDocument,
  WholeOrderDocument,
  type WholeOrderQuery,
} from '../../src/client/__generated__/graphql.js';
import { loadTypeDefs } from '../../src/graph/sdl.js';
import { findLeaks } from '../helpers/abuse-corpus.js';
import { demoCustomer } from '../helpers/demo.js';
import { execute, startGateway, startHarness, type Harness, type TestGateway } from '../helpers/harness.js';

// Fuzzing with fast-check: random bodies, random documents over the real schema, random
// JSON in the request parameters. Whatever comes in, the answer is well-formed HTTP, never
// a 5xx other than a masked internal error (each of which is counted and reported), never
// holds a stack, a token or an upstream address, and nothing goes unhandled in the process.

const RUNS = { bodies: 1_500, documents: 1_500, parameters: 1_000 };

let harness: Harness;
/** The same gateway's settings on a real socket, for (a): what arrives as HTTP goes through Node's server first. */
let overSocket: TestGateway;
let token = '';
let password = '';
let orderId = '';
let baseline: WholeOrderQuery;

const processFaults: string[] = [];
const onRejection = (reason: unknown) => processFaults.push(`unhandledRejection: ${String((reason as Error)?.stack ?? reason)}`);
const onException = (error: Error) => processFaults.push(`uncaughtException: ${error.stack ?? error.message}`);

beforeAll(async () => {
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  harness = await startHarness();
  overSocket = await startGateway({ upstream: harness.simulator });
  token = await harness.login('ready@demo.test');
  password = demoCustomer(harness.simulator, 'ready@demo.test').password;
  const { data, errors } = await execute(harness.client(token), WholeOrderDocument);
  expect(errors).toEqual([]);
  baseline = data!;
  orderId = baseline.me!.orders![0]!.id;
});
afterAll(async () => {
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
  await overSocket?.close();
  await harness?.close();
});

// ---------------------------------------------------------------------------------------
// Sending, and judging an answer

interface Sent {
  method: string;
  /** Appended to /graphql (a query string for GET). */
  search?: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
}

/** One kind of problem seen: how often, and the smallest request per request shape. */
interface Finding {
  count: number;
  examples: Map<string, string>;
}
const findings = new Map<string, Finding>();
let requestsSent = 0;

/** The request's shape: its method and how its document starts (none, other: not GraphQL). */
function shapeOf(sent: Sent): string {
  let query: unknown;
  try {
    query = sent.search
      ? new URLSearchParams(sent.search).get('query')
      : typeof sent.body === 'string'
        ? (JSON.parse(sent.body) as { query?: unknown })?.query
        : undefined;
  } catch {
    query = undefined;
  }
  const word = typeof query === 'string' ? (/^\s*(\{|query|mutation|subscription|fragment)\b/.exec(query)?.[1] ?? 'other') : 'none';
  return `${sent.method}, document: ${word}`;
}

function record(kind: string, sent: Sent, detail: string) {
  const example = `${sent.method} /graphql${sent.search ?? ''} ${JSON.stringify(sent.headers)} ${
    sent.body instanceof Uint8Array ? `bytes ${Buffer.from(sent.body).toString('hex').slice(0, 400)}` : (sent.body ?? '').slice(0, 800)
  } → ${detail.slice(0, 400)}`;
  const finding = findings.get(kind) ?? { count: 0, examples: new Map<string, string>() };
  findings.set(kind, finding);
  finding.count++;
  const shape = shapeOf(sent);
  const known = finding.examples.get(shape);
  if (known === undefined || example.length < known.length) finding.examples.set(shape, example);
}

const MASKED = 'Unexpected error.';
/** Every answer here takes milliseconds; one this slow is hanging on something. */
const SLOW_MS = 1_000;

/** Sends one request and records whatever is wrong with the answer. Never throws. */
async function exchange(
  sent: Sent,
  gateway: Pick<TestGateway, 'endpoint' | 'fetch'> = harness,
): Promise<{ executed: boolean } | undefined> {
  requestsSent++;
  let response: Response;
  let text: string;
  const startedAt = Date.now();
  try {
    response = await gateway.fetch(`${gateway.endpoint}${sent.search ?? ''}`, {
      method: sent.method,
      headers: sent.headers,
      ...(sent.body === undefined ? {} : { body: sent.body }),
      redirect: 'manual',
    });
    text = await response.text();
  } catch (error) {
    record('no well-formed HTTP answer', sent, String((error as Error)?.cause ?? error));
    return undefined;
  }
  const { status } = response;
  if (Date.now() - startedAt > SLOW_MS) record(`an answer slower than ${SLOW_MS} ms`, sent, `${status} after ${Date.now() - startedAt} ms`);
  if (!Number.isInteger(status) || status < 200 || status > 599) record('status out of range', sent, String(status));

  const contentType = response.headers.get('content-type') ?? '';
  let json: { data?: unknown; errors?: Array<{ message?: unknown; extensions?: { code?: unknown } }> } | undefined;
  if (/json/.test(contentType)) {
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      record('a JSON content type with a body that is not JSON', sent, `${status} ${text.slice(0, 200)}`);
    }
    const wellFormed =
      json !== null &&
      typeof json === 'object' &&
      ('data' in json || (Array.isArray(json.errors) && json.errors.length > 0)) &&
      (json.errors ?? []).every((e) => typeof e?.message === 'string');
    if (json !== undefined && !wellFormed) record('a GraphQL answer without data or errors', sent, `${status} ${text.slice(0, 200)}`);
  } else if (/event-stream|multipart/.test(contentType)) {
    // Streamed answers (subscription attempts): only the leak checks below apply.
  } else if (text !== '' && status !== 415) {
    record('an answer that is neither JSON nor empty', sent, `${status} ${contentType} ${text.slice(0, 200)}`);
  }

  const masked = (json?.errors ?? []).filter((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR');
  if (masked.some((e) => e.message !== MASKED)) record('an internal error that is not masked', sent, `${status} ${text}`);
  else if (masked.length > 0) record(`masked internal error (HTTP ${status})`, sent, `${status} ${text}`);
  if (status >= 500 && masked.length === 0) record('a 5xx that is not a masked internal error', sent, `${status} ${text.slice(0, 300)}`);

  const leaks = findLeaks(text, [token, password]);
  if (leaks.length > 0) record(`leak: ${leaks.join(', ')}`, sent, `${status} ${text.slice(0, 300)}`);
  return { executed: json !== undefined && json !== null && 'data' in json };
}

function report(): string {
  return [...findings.entries()]
    .map(([kind, { count, examples }]) =>
      [`${kind}: ${count}×`, ...[...examples.entries()].map(([shape, example]) => `  [${shape}] ${example}`)].join('\n'),
    )
    .join('\n');
}

// No text/html: a GET accepting it is the GraphiQL page (9 MB), not the API.
const ACCEPTS = [
  'application/graphql-response+json',
  'application/json',
  '*/*',
  'application/graphql-response+json, application/json;q=0.9',
  'application/xml',
];

// ---------------------------------------------------------------------------------------
// (a) Arbitrary bodies with several content types

const contentTypes = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/graphql-response+json',
    'application/graphql',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=xyz',
    'application/octet-stream',
    undefined,
  ),
  fc.stringMatching(/^[a-z]{1,8}\/[a-z+.-]{1,12}(; ?[a-z]{1,8}=[a-z0-9-]{1,8})?$/),
);

/** Text that is almost JSON: real request bodies with a random cut, insertion or duplication. */
const nearJson = fc
  .tuple(
    fc.constantFrom(
      JSON.stringify({ query: '{ me { id } }' }),
      JSON.stringify({ query: 'query ($id: ID!) { order(id: $id) { id status } }', variables: { id: 'x' } }),
      JSON.stringify({
        query: 'mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }',
        variables: { u: 'a', p: 'b' },
      }),
      JSON.stringify({ query: '{ orders { id vehicle { vin } } }', operationName: null, extensions: {} }),
    ),
    fc.nat(),
    fc.nat({ max: 20 }),
    fc.string({ maxLength: 12 }),
  )
  .map(([text, at, cut, insert]) => {
    const position = at % (text.length + 1);
    return text.slice(0, position) + insert + text.slice(Math.min(text.length, position + cut));
  });

const bodyArbitrary = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.uint8Array({ maxLength: 500 }),
  fc.json({ maxDepth: 4 }),
  nearJson,
);

const sendableBody = fc.record({
  method: fc.constantFrom('POST', 'POST', 'POST', 'POST', 'GET', 'PUT', 'PATCH', 'DELETE'),
  contentType: contentTypes,
  accept: fc.option(fc.constantFrom(...ACCEPTS), { nil: undefined }),
  csrf: fc.boolean(),
  auth: fc.boolean(),
  body: bodyArbitrary,
  search: fc.option(
    fc.dictionary(
      fc.constantFrom('query', 'variables', 'extensions', 'operationName', 'x'),
      fc.oneof(fc.string({ maxLength: 60 }), nearJson, fc.json({ maxDepth: 2 })),
      { maxKeys: 4 },
    ),
    { nil: undefined },
  ),
});

// ---------------------------------------------------------------------------------------
// (b) GraphQL-shaped documents from a small grammar over the real schema's field names

const schema = buildSchema(loadTypeDefs().join('\n'));
const compositeTypes = Object.values(schema.getTypeMap()).filter((t) => isCompositeType(t));
const allFieldNames = [...new Set(compositeTypes.flatMap((t) => ('getFields' in t ? Object.keys(t.getFields()) : [])))].sort();

type Directive = null | { name: 'include' | 'skip' | 'foo' | 'deprecated'; argument: 'true' | 'false' | 'variable' | 'none' | 'string' };
type Argument = { mode: 'omit' | 'valid' | 'variable' | 'wrong'; raw: unknown; variableType: number };
type Selection =
  | { kind: 'leaf'; pick: number }
  | { kind: 'stray'; name: string }
  | { kind: 'field'; pick: number; alias: string | null; args: Argument[]; directive: Directive; children: Selection[] }
  | { kind: 'inline'; other: number | null; directive: Directive; children: Selection[] }
  | { kind: 'spread'; fragment: number; directive: Directive };

// Weighted towards valid documents, so that most runs get past validation into the
// resolvers; every choice still has its invalid alternatives.
const directiveArbitrary: fc.Arbitrary<Directive> = fc.oneof(
  { arbitrary: fc.constant(null), weight: 8 },
  {
    arbitrary: fc.record({
      name: fc.constantFrom('include' as const, 'skip' as const),
      argument: fc.constantFrom('true' as const, 'false' as const, 'variable' as const),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      name: fc.constantFrom('include' as const, 'skip' as const, 'foo' as const, 'deprecated' as const),
      argument: fc.constantFrom('true' as const, 'false' as const, 'variable' as const, 'none' as const, 'string' as const),
    }),
    weight: 1,
  },
);
const argumentArbitrary: fc.Arbitrary<Argument> = fc.record({
  mode: fc.oneof(
    { arbitrary: fc.constant('valid' as const), weight: 6 },
    { arbitrary: fc.constant('variable' as const), weight: 3 },
    { arbitrary: fc.constant('omit' as const), weight: 1 },
    { arbitrary: fc.constant('wrong' as const), weight: 1 },
  ),
  raw: fc.jsonValue({ maxDepth: 3 }),
  variableType: fc.nat(),
});
const aliasArbitrary = fc.oneof(
  { arbitrary: fc.constant(null), weight: 3 },
  { arbitrary: fc.constantFrom('a', 'b', 'me', 'orders', 'id', '__typename', 'x1'), weight: 1 },
);

const { selection } = fc.letrec<{ selection: Selection }>((tie) => ({
  selection: fc.oneof(
    { depthSize: 'small', maxDepth: 6, withCrossShrink: true, depthIdentifier: 'selection' },
    { arbitrary: fc.record({ kind: fc.constant('leaf' as const), pick: fc.nat() }), weight: 4 },
    {
      arbitrary: fc.record({
        kind: fc.constant('field' as const),
        pick: fc.nat(),
        alias: aliasArbitrary,
        args: fc.array(argumentArbitrary, { maxLength: 2 }),
        directive: directiveArbitrary,
        children: fc.array(tie('selection'), { maxLength: 4 }),
      }),
      weight: 5,
    },
    {
      arbitrary: fc.record({
        kind: fc.constant('inline' as const),
        other: fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: fc.nat(), weight: 1 }),
        directive: directiveArbitrary,
        children: fc.array(tie('selection'), { maxLength: 3 }),
      }),
      weight: 1,
    },
    {
      arbitrary: fc.record({ kind: fc.constant('spread' as const), fragment: fc.nat({ max: 4 }), directive: directiveArbitrary }),
      weight: 1,
    },
    {
      arbitrary: fc.record({
        kind: fc.constant('stray' as const),
        name: fc.constantFrom(...allFieldNames, '__schema', '__type', 'nope', ''),
      }),
      weight: 1,
    },
  ),
}));

const operationArbitrary = fc.record({
  kind: fc.oneof(
    { arbitrary: fc.constant('query' as const), weight: 10 },
    { arbitrary: fc.constant('anonymous' as const), weight: 3 },
    { arbitrary: fc.constant('mutation' as const), weight: 2 },
    { arbitrary: fc.constant('subscription' as const), weight: 1 },
  ),
  name: fc.oneof(
    { arbitrary: fc.constant(null), weight: 3 },
    { arbitrary: fc.constantFrom('Q', 'WholeOrder', '__schema', '__type', 'IntrospectionQuery'), weight: 2 },
  ),
  selections: fc.array(selection, { minLength: 1, maxLength: 5 }),
});

const planArbitrary = fc.record({
  /** Half the documents as drawn (mostly invalid), half with every choice made valid. */
  sloppy: fc.boolean(),
  operations: fc.oneof(
    { arbitrary: fc.array(operationArbitrary, { minLength: 1, maxLength: 1 }), weight: 3 },
    { arbitrary: fc.array(operationArbitrary, { minLength: 2, maxLength: 3 }), weight: 1 },
  ),
  fragments: fc.oneof(
    { arbitrary: fc.constant<Array<{ on: number; selections: Selection[] }>>([]), weight: 1 },
    {
      arbitrary: fc.array(fc.record({ on: fc.nat(), selections: fc.array(selection, { minLength: 1, maxLength: 3 }) }), {
        minLength: 1,
        maxLength: 3,
      }),
      weight: 1,
    },
  ),
  operationName: fc.oneof(
    { arbitrary: fc.constant(null), weight: 6 },
    { arbitrary: fc.constantFrom('Q', 'WholeOrder', '__schema', 'missing'), weight: 1 },
  ),
  /** Per declared variable: the JSON sent, or (null) a value of the declared type. */
  variableValues: fc.array(fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 }), {
    maxLength: 4,
  }),
  accept: fc.constantFrom(...ACCEPTS),
  auth: fc.constantFrom('token' as const, 'token' as const, 'token' as const, 'token' as const, 'none' as const, 'garbage' as const),
  viaGet: fc.boolean(),
});
type Plan = typeof planArbitrary extends fc.Arbitrary<infer T> ? T : never;

const VARIABLE_TYPES = ['ID!', 'ID', 'String!', 'String', 'Int', 'Boolean!', 'FeeType', '[ID!]', 'Float', 'Nope'];

/** A JSON value as a GraphQL literal (object keys made into names). */
function literal(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k.replace(/\W/g, '_').replace(/^(?=\d|$)/, 'k')}: ${literal(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

interface RenderContext {
  variables: Array<{ name: string; type: string; value: unknown }>;
  plan: Plan;
  fragments: number;
  /** Off: every choice is rendered valid (a stray name as a real field, …); on: as drawn. */
  sloppy: boolean;
  /** For unique aliases when not sloppy. */
  aliases: number;
}

/** A value of the given input type, for a valid argument or variable. */
function validValue(type: GraphQLInputType, asJson: boolean): unknown {
  if (isNonNullType(type)) return validValue(type.ofType, asJson);
  if (isListType(type)) return [validValue(type.ofType, asJson)];
  if (isEnumType(type)) return asJson ? type.getValues()[0]!.name : { enum: type.getValues()[0]!.name };
  if (isInputObjectType(type)) return {};
  switch (type.name) {
    case 'Int':
      return 1;
    case 'Float':
      return 1.5;
    case 'Boolean':
      return true;
    default:
      return orderId || 'x';
  }
}

function renderValue(value: unknown): string {
  if (value && typeof value === 'object' && 'enum' in value) return String((value as { enum: string }).enum);
  return literal(value);
}

function renderArguments(field: GraphQLField<unknown, unknown>, args: Argument[], context: RenderContext): string {
  const parts: string[] = [];
  field.args.forEach((definition, index) => {
    const drawn = args[index];
    const choice =
      drawn && !context.sloppy && (drawn.mode === 'wrong' || drawn.mode === 'omit') ? { ...drawn, mode: 'valid' as const } : drawn;
    if (!choice) {
      if (!context.sloppy && isNonNullType(definition.type))
        parts.push(`${definition.name}: ${renderValue(validValue(definition.type, false))}`);
      return;
    }
    if (choice.mode === 'omit') return;
    if (choice.mode === 'valid') parts.push(`${definition.name}: ${renderValue(validValue(definition.type, false))}`);
    else if (choice.mode === 'wrong') parts.push(`${definition.name}: ${literal(choice.raw)}`);
    else {
      const name = `v${context.variables.length}`;
      const declared =
        context.sloppy && choice.variableType % 3 === 0
          ? VARIABLE_TYPES[choice.variableType % VARIABLE_TYPES.length]!
          : String(definition.type);
      const sent = context.sloppy ? context.plan.variableValues[context.variables.length] : null;
      context.variables.push({ name, type: declared, value: sent ?? validValue(definition.type, true) });
      parts.push(`${definition.name}: $${name}`);
    }
  });
  // Extra arguments beyond the field's own: unknown ones.
  if (context.sloppy) for (const extra of args.slice(field.args.length)) if (extra.mode === 'wrong') parts.push(`x: ${literal(extra.raw)}`);
  return parts.length > 0 ? `(${parts.join(', ')})` : '';
}

function renderDirective(drawn: Directive, context: RenderContext): string {
  if (!drawn) return '';
  const directive: NonNullable<Directive> = context.sloppy
    ? drawn
    : {
        name: drawn.name === 'skip' ? 'skip' : 'include',
        argument: drawn.argument === 'none' || drawn.argument === 'string' ? 'true' : drawn.argument,
      };
  switch (directive.argument) {
    case 'none':
      return ` @${directive.name}`;
    case 'string':
      return ` @${directive.name}(if: "yes")`;
    case 'variable': {
      const name = `v${context.variables.length}`;
      context.variables.push({
        name,
        type: 'Boolean!',
        value: (context.sloppy ? context.plan.variableValues[context.variables.length] : null) ?? true,
      });
      return ` @${directive.name}(if: $${name})`;
    }
    default:
      return ` @${directive.name}(if: ${directive.argument})`;
  }
}

function fieldsOf(type: GraphQLNamedType | undefined, root: boolean): Array<GraphQLField<unknown, unknown>> {
  const own = type && (isObjectType(type) || isInterfaceType(type)) ? Object.values(type.getFields()) : [];
  // At the root, the schema's own fields three times as likely as the meta fields.
  return root ? [...own, ...own, ...own, SchemaMetaFieldDef, TypeMetaFieldDef] : own;
}

function renderSelections(selections: Selection[], type: GraphQLNamedType | undefined, context: RenderContext, root = false): string {
  return `{ ${selections.map((s) => renderSelection(s, type, context, root)).join(' ')} }`;
}

function renderSelection(selection: Selection, type: GraphQLNamedType | undefined, context: RenderContext, root: boolean): string {
  const fields = fieldsOf(type, root);
  switch (selection.kind) {
    case 'stray':
      if (!context.sloppy) return renderSelection({ kind: 'leaf', pick: selection.name.length }, type, context, root);
      return selection.name || '__typename';
    case 'leaf': {
      const leaves = fields.filter((f) => isLeafType(getNamedType(f.type)));
      return leaves.length === 0 ? '__typename' : leaves[selection.pick % leaves.length]!.name;
    }
    case 'spread':
      if (!context.sloppy)
        return renderSelection({ kind: 'inline', other: null, directive: selection.directive, children: [] }, type, context, root);
      return `...F${selection.fragment % (context.fragments + 1)}${renderDirective(selection.directive, context)}`;
    case 'inline': {
      const on = selection.other === null || !context.sloppy ? type : compositeTypes[selection.other % compositeTypes.length];
      return `...${on ? ` on ${on.name}` : ''}${renderDirective(selection.directive, context)} ${renderSelections(
        selection.children.length > 0 ? selection.children : [{ kind: 'leaf', pick: 0 }],
        on,
        context,
      )}`;
    }
    case 'field': {
      if (fields.length === 0) return '__typename';
      const field = fields[selection.pick % fields.length]!;
      const named = getNamedType(field.type);
      // Unique aliases when not sloppy: no two fields may then conflict.
      const alias = context.sloppy ? selection.alias : selection.alias !== null || field.args.length > 0 ? `f${context.aliases++}` : null;
      const head = `${alias ? `${alias}: ` : ''}${field.name}${renderArguments(field, selection.args, context)}${renderDirective(selection.directive, context)}`;
      if (isLeafType(named))
        return context.sloppy && selection.children.length > 0 && selection.pick % 5 === 0
          ? `${head} ${renderSelections(selection.children, named, context)}`
          : head;
      return `${head} ${renderSelections(selection.children.length > 0 ? selection.children : [{ kind: 'leaf', pick: selection.pick }], named, context)}`;
    }
  }
}

/** The plan as a request: the document, its variables, the operation name. */
function renderPlan(plan: Plan): { query: string; variables: Record<string, unknown>; operationName: string | null } {
  const context: RenderContext = { variables: [], plan, fragments: plan.fragments.length, sloppy: plan.sloppy, aliases: 0 };
  const fragments = (plan.sloppy ? plan.fragments : []).map((fragment, index) => {
    const on = compositeTypes[fragment.on % compositeTypes.length]!;
    return `fragment F${index} on ${on.name} ${renderSelections(fragment.selections, on, context)}`;
  });
  const operations = (plan.sloppy ? plan.operations : plan.operations.slice(0, 1)).map((drawn) => {
    const operation = !plan.sloppy && drawn.kind === 'subscription' ? { ...drawn, kind: 'query' as const } : drawn;
    const start = context.variables.length;
    const rootType = operation.kind === 'mutation' ? (schema.getMutationType() ?? undefined) : schema.getQueryType()!;
    const body = renderSelections(operation.selections, rootType, context, operation.kind !== 'mutation');
    const declared = context.variables.slice(start).map((v) => `$${v.name}: ${v.type}`);
    if (operation.kind === 'anonymous' && (plan.sloppy || declared.length === 0)) return body;
    return `${operation.kind === 'anonymous' ? 'query' : operation.kind}${operation.name ? ` ${operation.name}` : ''}${declared.length > 0 ? `(${declared.join(', ')})` : ''} ${body}`;
  });
  const variables = Object.fromEntries(context.variables.map((v) => [v.name, v.value]));
  return { query: [...operations, ...fragments].join('\n'), variables, operationName: plan.sloppy ? plan.operationName : null };
}

function authHeader(auth: 'token' | 'none' | 'garbage'): Record<string, string> {
  if (auth === 'none') return {};
  return { authorization: auth === 'token' ? `Bearer ${token}` : 'Bearer not.a.jwt' };
}

// ---------------------------------------------------------------------------------------
// (c) Random JSON in variables, extensions and operationName around the SDK's documents

const sdkDocuments = [WholeOrderDocument, MeDocument, OrderSummaryDocument, OrderByIdDocument, LoginDocument, RefreshTokensDocument].map(
  (d) => print(d),
);
const parameterArbitrary = fc.record({
  document: fc.nat({ max: sdkDocuments.length - 1 }),
  variables: fc.oneof(
    fc.jsonValue({ maxDepth: 4 }),
    fc.record(
      {
        id: fc.jsonValue({ maxDepth: 2 }),
        username: fc.jsonValue({ maxDepth: 2 }),
        password: fc.jsonValue({ maxDepth: 1 }),
        refreshToken: fc.jsonValue({ maxDepth: 1 }),
      },
      { requiredKeys: [] },
    ),
  ),
  extensions: fc.oneof(
    fc.jsonValue({ maxDepth: 4 }),
    fc.record({
      persistedQuery: fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        fc.record({ version: fc.jsonValue({ maxDepth: 1 }), sha256Hash: fc.oneof(fc.string(), fc.stringMatching(/^[0-9a-f]{64}$/)) }),
      ),
    }),
  ),
  operationName: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('WholeOrder', 'Login', 'Me', 'Nope', '')),
  omit: fc.subarray(['variables', 'extensions', 'operationName'] as const),
  accept: fc.constantFrom(...ACCEPTS),
});

// ---------------------------------------------------------------------------------------

describe('fuzzing the gateway', () => {
  it(`(a) ${RUNS.bodies} arbitrary bodies, content types and methods`, async () => {
    await fc.assert(
      fc.asyncProperty(sendableBody, async (input) => {
        const headers: Record<string, string> = {
          ...(input.auth ? authHeader('token') : {}),
          ...(input.contentType ? { 'content-type': input.contentType } : {}),
          ...(input.accept ? { accept: input.accept } : {}),
          ...(input.csrf ? { 'x-graphql-yoga-csrf': '1' } : {}),
        };
        const withBody = input.method !== 'GET' && input.method !== 'DELETE';
        // A string body without a content type would get text/plain from fetch: send bytes.
        const body = typeof input.body === 'string' && !input.contentType ? new TextEncoder().encode(input.body) : input.body;
        await exchange(
          {
            method: input.method,
            headers,
            ...(input.search ? { search: `?${new URLSearchParams(input.search)}` } : {}),
            ...(withBody ? { body } : {}),
          },
          overSocket,
        );
      }),
      { numRuns: RUNS.bodies },
    );
    // Then the gateway those came to still answers the whole-order query exactly as before.
    const { data, errors } = await execute(overSocket.client(token), WholeOrderDocument);
    expect(errors).toEqual([]);
    expect(data).toEqual(baseline);
  }, 60_000);

  it(`(b) ${RUNS.documents} random documents over the schema's fields`, async () => {
    let executed = 0;
    let reachedUpstream = 0;
    harness.simulator.clearLog();
    await fc.assert(
      fc.asyncProperty(planArbitrary, async (plan) => {
        const { query, variables, operationName } = renderPlan(plan);
        const headers = { ...authHeader(plan.auth), accept: plan.accept };
        const sent: Sent = plan.viaGet
          ? {
              method: 'GET',
              search: `?${new URLSearchParams({ query, variables: JSON.stringify(variables), ...(operationName ? { operationName } : {}) })}`,
              headers: { ...headers, 'x-graphql-yoga-csrf': '1' },
            }
          : {
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json' },
              body: JSON.stringify({ query, variables, operationName }),
            };
        const before = harness.simulator.requestLog.length;
        if ((await exchange(sent))?.executed) executed++;
        if (harness.simulator.requestLog.length > before) reachedUpstream++;
      }),
      { numRuns: RUNS.documents },
    );
    // The grammar gets past validation into the resolvers, and on to the upstream.
    expect(executed).toBeGreaterThan(RUNS.documents / 4);
    expect(reachedUpstream).toBeGreaterThan(RUNS.documents / 10);
  }, 60_000);

  it(`(c) ${RUNS.parameters} random variables, extensions and operationName around the SDK documents`, async () => {
    await fc.assert(
      fc.asyncProperty(parameterArbitrary, async (input) => {
        const body: Record<string, unknown> = {
          query: sdkDocuments[input.document],
          variables: input.variables,
          extensions: input.extensions,
          operationName: input.operationName,
        };
        for (const key of input.omit) delete body[key];
        await exchange({
          method: 'POST',
          headers: { ...authHeader('token'), 'content-type': 'application/json', accept: input.accept },
          body: JSON.stringify(body),
        });
      }),
      { numRuns: RUNS.parameters },
    );
  }, 60_000);

  it('nothing went wrong: no 5xx, no masked internal error, no leak, nothing unhandled', () => {
    expect(requestsSent).toBe(RUNS.bodies + RUNS.documents + RUNS.parameters);
    expect(processFaults).toEqual([]);
    expect(report()).toBe('');
  });

  it('afterwards the gateway still answers the whole-order query exactly as before', async () => {
    const { data, errors } = await execute(harness.client(token), WholeOrderDocument);
    expect(errors).toEqual([]);
    expect(data).toEqual(baseline);
  });
});
