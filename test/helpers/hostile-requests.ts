/**
 * The hostile requests that test the request limits (test/integration/request-limits.test.ts),
 * generated as families × sizes, each with the answer the gateway must give, and the leak
 * check applied to every response body there and in the fuzzing of graphql-over-http.test.ts.
 */
import { gzipSync, deflateSync } from 'node:zlib';
import {
  getIntrospectionQuery,
  Kind,
  Lexer,
  print,
  Source,
  TokenKind,
  type FieldNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { LIMITS } from '../../src/server/limits.js';

/** What the gateway must answer. */
export interface Expected {
  status: number;
  /** `errors[0].extensions.code`; null: the error carries no code (pinned as observed). */
  code?: string | null;
  /** Some error's message matches it. */
  message?: RegExp;
  /** No body at all (415, 406, 431, HEAD). */
  emptyBody?: boolean;
  /** A body that is not JSON, matching this. */
  text?: RegExp;
}

export type Target = 'gateway' | 'introspectionOff';

export interface HostileRequest {
  family: string;
  name: string;
  method: string;
  /** Appended to the gateway's origin; default `/graphql`. */
  path?: string;
  headers: Record<string, string>;
  /** Made on demand, so the multi-megabyte bodies exist only while they are sent. */
  body?: () => string | Uint8Array<ArrayBuffer> | FormData;
  /** The gateway it is sent to; default the one with introspection on. */
  target?: Target;
  /**
   * 'chunked': the body's bytes go out chunked in 16 KB slices over a connection of its own
   * (node:http), and the answer is read as soon as it comes, before the body is all sent.
   */
  transport?: 'fetch' | 'chunked';
  expected: Expected;
}

/** The modern media type: request errors must then come back as 4xx (GraphQL over HTTP). */
export const JSON_POST = { 'content-type': 'application/json', accept: 'application/graphql-response+json' } as const;
const CSRF = { 'x-graphql-yoga-csrf': '1' } as const;

/** Lexical tokens as graphql-armor counts them (comments and commas are not tokens). */
export function countTokens(query: string): number {
  const lexer = new Lexer(new Source(query));
  let count = 0;
  while (lexer.advance().kind !== TokenKind.EOF) count++;
  return count;
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const repeat = (n: number, item: (i: number) => string, separator = ' ') => range(n).map(item).join(separator);

export const TOO_LARGE: Expected = { status: 413, code: 'REQUEST_ENTITY_TOO_LARGE', message: /^Request body too large$/ };
/** A compressed request body: refused before it is inflated. */
export const COMPRESSED_BODY: Expected = { status: 415, code: 'UNSUPPORTED_CONTENT_ENCODING', message: /not accepted compressed/ };
export const TOO_MANY_TOKENS: Expected = { status: 400, code: 'GRAPHQL_PARSE_FAILED', message: /Token limit|Query validation error/ };
/**
 * A query limit (graphql-armor's depth, aliases and directives; the cost and selection
 * limits of src/server/cost.ts): 400 with GRAPHQL_VALIDATION_FAILED like every other invalid
 * document. The message may name the limit or be armor's neutral "Query validation error.".
 */
const armor = (limits: string): Expected => ({
  status: 400,
  code: 'GRAPHQL_VALIDATION_FAILED',
  message: new RegExp(`(${limits}) limit|Query validation error|Maximum introspection depth`, 'i'),
});
const invalid = (message: RegExp): Expected => ({ status: 400, code: 'GRAPHQL_VALIDATION_FAILED', message });
const badRequest = (message: RegExp, status = 400): Expected => ({ status, code: 'BAD_REQUEST', message });
const CSRF_REFUSED: Expected = { status: 403, code: 'PREFLIGHT_REQUIRED', message: /^A POST must be sent as application\/json/ };
const UNRESOLVED: Expected = {
  status: 400,
  code: 'OPERATION_RESOLUTION_FAILURE',
  message: /Could not determine what operation to execute/,
};

/**
 * A POST of a GraphQL document: the body limit comes first, then the token limit (while
 * parsing), then what the document itself deserves.
 */
function document(family: string, name: string, query: string, deserved: Expected, extra: Record<string, unknown> = {}): HostileRequest {
  const body = JSON.stringify({ query, ...extra });
  const expected =
    bytes(body) > LIMITS.maxRequestBodyBytes ? TOO_LARGE : countTokens(query) > LIMITS.maxTokens ? TOO_MANY_TOKENS : deserved;
  return { family, name, method: 'POST', headers: { ...JSON_POST }, body: () => body, expected };
}

const rawPost = (
  family: string,
  name: string,
  body: NonNullable<HostileRequest['body']>,
  expected: Expected,
  headers: Record<string, string> = JSON_POST,
): HostileRequest => ({
  family,
  name,
  method: 'POST',
  headers: { ...headers },
  body,
  expected,
});

// Fields that reach the upstream if the document is ever executed: a rejection that let
// the document through would show in the simulator's request log.
const UPSTREAM_FIELDS = 'me { id } orders { id }';

function ofTypeChain(levels: number, wrap: (inner: string) => string = (inner) => inner): string {
  let selection = 'name';
  for (let i = 0; i < levels; i++) selection = `ofType { ${wrap(selection)} }`;
  return selection;
}

function depthFamily(): HostileRequest[] {
  const family = 'depth';
  const requests: HostileRequest[] = [];
  // The schema has no cycles (its deepest path is 6 fields), so depth beyond 15 is
  // introspection's: __type → fields → type → ofType → ofType → …
  for (const depth of [16, 17, 20, 32, 64, 128, 256, 512, 1024]) {
    const levels = depth - 4; // __type, fields, type, …, name
    requests.push(
      document(
        family,
        `__type ofType chain, depth ${depth}`,
        `{ ${UPSTREAM_FIELDS} __type(name: "Order") { fields { type { ${ofTypeChain(levels)} } } } }`,
        armor('depth|cost'),
      ),
      document(
        family,
        `__type ofType chain in inline fragments, depth ${depth}`,
        `{ ${UPSTREAM_FIELDS} __type(name: "Order") { fields { type { ${ofTypeChain(levels, (inner) => `... on __Type { ${inner} }`)} } } } }`,
        armor('depth|cost'),
      ),
    );
    if (depth <= 256) {
      const fragments = range(levels).map((i) => `fragment T${i} on __Type { ofType { ${i + 1 < levels ? `...T${i + 1}` : 'name'} } }`);
      requests.push(
        document(
          family,
          `__type ofType chain through ${levels} named fragments, depth ${depth}`,
          `{ ${UPSTREAM_FIELDS} __type(name: "Order") { fields { type { ...T0 } } } } ${fragments.join(' ')}`,
          armor('depth|cost'),
        ),
      );
    }
  }
  // Inline fragments add no depth and no cost: graphql-js merges them, and the answer is
  // `me { id }`'s. The token limit bounds their nesting below 400 levels (the deepest that
  // fits is answered: see 'shapes inside the limits'); graphql-armor's cost, at × 1.5 per
  // level, refused them from 20 levels on.
  for (const levels of [400, 600, 1000]) {
    requests.push(
      document(
        family,
        `${levels} nested inline fragments around me { id }`,
        `{ ${'... on Query { '.repeat(levels)}me { id }${' }'.repeat(levels)} }`,
        TOO_MANY_TOKENS,
      ),
    );
  }
  // Introspection's own cycles (fields → type → fields, interfaces → possibleTypes, …).
  for (const cycles of [3, 4, 8, 50]) {
    let fields = 'name';
    let possible = 'name';
    for (let i = 0; i < cycles; i++) {
      fields = `name fields { type { ${fields} } }`;
      possible = `name interfaces { possibleTypes { ${possible} } }`;
    }
    requests.push(
      document(
        family,
        `__schema types.fields.type × ${cycles}`,
        `{ ${UPSTREAM_FIELDS} __schema { types { ${fields} } } }`,
        armor('depth|cost'),
      ),
      document(family, `__type fields.type × ${cycles}`, `{ ${UPSTREAM_FIELDS} __type(name: "Order") { ${fields} } }`, armor('depth|cost')),
      document(
        family,
        `__schema interfaces.possibleTypes × ${cycles}`,
        `{ ${UPSTREAM_FIELDS} __schema { types { ${possible} } } }`,
        armor('depth|cost'),
      ),
    );
  }
  return requests;
}

function aliasFamily(): HostileRequest[] {
  const family = 'aliases';
  const shapes: Record<string, (n: number) => string> = {
    'root orders': (n) => `{ ${repeat(n, (i) => `a${i}: orders { id }`)} }`,
    'root me': (n) => `{ ${repeat(n, (i) => `a${i}: me { id }`)} }`,
    'scalars under me': (n) => `{ me { ${repeat(n, (i) => `a${i}: id`)} } }`,
    'under me.orders': (n) => `{ me { orders { ${repeat(n, (i) => `a${i}: status`)} } } }`,
    'inside a fragment': (n) => `{ me { ...F } } fragment F on Customer { ${repeat(n, (i) => `a${i}: email`)} }`,
  };
  return Object.entries(shapes).flatMap(([shape, build]) =>
    [21, 25, 50, 100, 500, 1000, 5000].map((n) => document(family, `${n} aliases, ${shape}`, build(n), armor('aliases|cost'))),
  );
}

function repeatedFieldsFamily(): HostileRequest[] {
  const family = 'repeated fields and tokens';
  const requests: HostileRequest[] = [];
  // Up to the token limit the document parses; graphql-js then runs out of its
  // overlapping-fields work budget ("Validation aborted."): a correct rejection.
  const aborted = invalid(/Validation aborted/);
  const shapes: Record<string, (n: number) => string> = {
    'me { id … }': (n) => `{ me { ${'id '.repeat(n)}} }`,
    'orders { id … }': (n) => `{ orders { ${'id '.repeat(n)}} }`,
    'offer amount { amount … }': (n) => `{ me { orders { tradeIn { offer { amount { ${'amount '.repeat(n)}} } } } } }`,
    '__typename …': (n) => `{ ${UPSTREAM_FIELDS} ${'__typename '.repeat(n)}}`,
  };
  for (const [shape, build] of Object.entries(shapes)) {
    for (const n of [1200, 1500, 1990, 2000, 2500, 5000, 20_000, 30_000])
      requests.push(document(family, `${n} × ${shape}`, build(n), aborted));
  }
  requests.push(
    document(
      family,
      '300 unused variable definitions',
      `query (${repeat(300, (i) => `$v${i}: Int`, ', ')}) { me { id } }`,
      invalid(/is never used/),
    ),
    document(
      family,
      '700 variable definitions',
      `query (${repeat(700, (i) => `$v${i}: Int`, ', ')}) { me { id } }`,
      invalid(/is never used/),
    ),
    document(
      family,
      '400 unknown arguments',
      `{ order(id: "x", ${repeat(400, (i) => `x${i}: 1`, ', ')}) { id } }`,
      invalid(/Unknown argument|Validation aborted/),
    ),
    document(
      family,
      '600 operations',
      repeat(600, (i) => `query Q${i} { me { id } }`),
      UNRESOLVED,
      { operationName: 'Q0' },
    ),
  );
  return requests;
}

function fragmentFamily(): HostileRequest[] {
  const family = 'fragments';
  const requests: HostileRequest[] = [];
  const cycle = invalid(/Cannot spread fragment "\w+" within itself/);
  const chainCycle = (n: number, type: string, field: string) =>
    range(n)
      .map((i) => `fragment C${i} on ${type} { ${field} ...C${(i + 1) % n} }`)
      .join(' ');
  requests.push(
    document(family, 'cycle A → B → A', `{ me { ...A } } fragment A on Customer { ...B } fragment B on Customer { ...A }`, cycle),
    document(family, 'self-spread', `{ me { ...A } } fragment A on Customer { id ...A }`, cycle),
    document(family, 'cycle through an inline fragment', `{ me { ...A } } fragment A on Customer { ... on Customer { ...A } }`, cycle),
    document(
      family,
      'cycle through a field',
      `{ __type(name: "Order") { ...T } me { id } } fragment T on __Type { ofType { ...T } }`,
      cycle,
    ),
    document(
      family,
      'unused cycle',
      `{ me { id } } fragment A on Customer { ...B } fragment B on Customer { ...A }`,
      invalid(/within itself|is never used/),
    ),
  );
  for (const n of [3, 10, 50, 150]) {
    requests.push(
      document(family, `${n}-fragment cycle on Customer`, `{ me { ...C0 } } ${chainCycle(n, 'Customer', 'id')}`, cycle),
      document(family, `${n}-fragment cycle on Order`, `{ orders { ...C0 } } ${chainCycle(n, 'Order', 'status')}`, cycle),
    );
  }
  // Bombs: each fragment spreads the previous one twice, 2^k fields once expanded. The cost
  // count expands fragments, so it stops at LIMITS.maxSelections (4,096 selections at k = 10).
  const bomb = (k: number, type: string, leaf: string) =>
    [`fragment F0 on ${type} { ${leaf} }`, ...range(k).map((i) => `fragment F${i + 1} on ${type} { ...F${i} ...F${i} }`)].join(' ');
  for (const k of [10, 12, 16, 20, 30, 50, 80]) {
    requests.push(
      document(family, `bomb 2^${k} on Customer`, `{ me { ...F${k} } } ${bomb(k, 'Customer', 'id email')}`, armor('selection')),
      document(family, `bomb 2^${k} on Order`, `{ orders { ...F${k} } } ${bomb(k, 'Order', 'id status')}`, armor('selection')),
      document(family, `bomb 2^${k} on Query`, `{ ...F${k} } ${bomb(k, 'Query', 'me { id } orders { id }')}`, armor('selection')),
    );
  }
  // Breadth: one heavy fragment (40 fields, 640 a page of 16) spread many times: past the cost
  // from 16 spreads on, and the count stops at LIMITS.maxSelections from 49 on.
  const heavy =
    'fragment E on Order { estimate { fees { code description amount { amount currencyCode } } taxes { code description rate taxableAmount { amount currencyCode } amount { amount currencyCode } } credits { code description amount { amount currencyCode } } total { amount currencyCode } } tradeIn { offer { amount { amount currencyCode } } vehicle { vin year make model trim mileage mileageUnit condition } } }';
  for (const n of [50, 100, 400, 1000]) {
    requests.push(
      document(family, `one heavy fragment spread ${n} times`, `{ me { orders { ${'...E '.repeat(n)}} } } ${heavy}`, armor('selection')),
    );
  }
  for (const n of [1, 2, 10, 100, 300]) {
    requests.push(
      document(
        family,
        `${n} unused fragments`,
        `{ me { id } } ${repeat(n, (i) => `fragment U${i} on Customer { id }`)}`,
        invalid(/Fragment "U\d+" is never used/),
      ),
    );
  }
  requests.push(
    document(family, 'spread of an undefined fragment', `{ me { ...Nope } }`, invalid(/Unknown fragment "Nope"/)),
    document(family, 'fragment on an unknown type', `{ me { ...F } } fragment F on Nope { id }`, invalid(/Unknown type "Nope"/)),
    document(
      family,
      'fragment on a scalar',
      `{ me { id } } fragment F on String { id }`,
      invalid(/cannot condition on non composite type|is never used/),
    ),
    document(
      family,
      'fragment spread where it cannot apply',
      `{ me { ...O } } fragment O on Order { id }`,
      invalid(/cannot be spread here/),
    ),
    document(
      family,
      'two fragments with one name',
      `{ me { ...F } } fragment F on Customer { id } fragment F on Customer { email }`,
      invalid(/There can be only one fragment named "F"/),
    ),
  );
  return requests;
}

// The SDK's whole-order fragments (CustomerFields, WholeOrderFields and what they spread).
export const WHOLE_ORDER_FRAGMENTS = WholeOrderDocument.definitions
  .filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION)
  .map((definition) => print(definition))
  .join('\n');

const WHOLE_ORDER_FRAGMENTS_BY_NAME = new Map(
  WholeOrderDocument.definitions.flatMap((definition) =>
    definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [],
  ),
);

// What the SDK's WholeOrder asks of `me`: the customer, its customer-level fields and its orders.
const WHOLE_ORDER_ME = WholeOrderDocument.definitions
  .flatMap((definition) => (definition.kind === Kind.OPERATION_DEFINITION ? definition.selectionSet.selections : []))
  .find((selection): selection is FieldNode => selection.kind === Kind.FIELD && selection.name.value === 'me')!.selectionSet!;
const isOrders = (selection: SelectionNode) => selection.kind === Kind.FIELD && selection.name.value === 'orders';
/** WholeOrder's `me` selection but its orders: the customer and every field of it WholeOrder asks for. */
const CUSTOMER_SELECTION = { ...WHOLE_ORDER_ME, selections: WHOLE_ORDER_ME.selections.filter((selection) => !isOrders(selection)) };
const WHOLE_ORDER_FIELDS = (WHOLE_ORDER_ME.selections.find(isOrders) as FieldNode).selectionSet!;

/**
 * WholeOrder's `me`, its orders asked for as `orders` says (`orders(first: 3)`, aliases): whatever
 * the SDK's whole order asks of the customer, with WHOLE_ORDER_FRAGMENTS for the fragments it spreads.
 */
export const wholeOrderMe = (orders: (fields: string) => string) =>
  `me { ${CUSTOMER_SELECTION.selections.map((selection) => print(selection)).join(' ')} ${orders(print(WHOLE_ORDER_FIELDS))} }`;

/**
 * The paging example of docs/querying.md: a page of whole orders after a given one, with
 * `first` as a literal or (`'$first'`) a variable.
 */
export function wholeOrderPage(first: number | '$first'): string {
  const variables = first === '$first' ? '$after: ID, $first: Int' : '$after: ID';
  return `query WholeOrderPage(${variables}) {
  ${wholeOrderMe((fields) => `orderCount orders(first: ${first}, after: $after) ${fields}`)}
}
${WHOLE_ORDER_FRAGMENTS}`;
}

/**
 * The fields a selection of the SDK's whole order selects, its spreads expanded, counted: its
 * cost, since each field counts 1 and a list without `first` counts its fields once.
 */
function fieldsOf(selectionSet: SelectionSetNode): number {
  return selectionSet.selections.reduce((sum, selection) => {
    if (selection.kind === Kind.FRAGMENT_SPREAD)
      return sum + fieldsOf(WHOLE_ORDER_FRAGMENTS_BY_NAME.get(selection.name.value)!.selectionSet);
    if (selection.kind === Kind.INLINE_FRAGMENT) return sum + fieldsOf(selection.selectionSet);
    if (selection.arguments?.some((argument) => argument.name.value === 'first'))
      throw new Error(`a paged list (${selection.name.value}) is not counted once`);
    return sum + 1 + (selection.selectionSet ? fieldsOf(selection.selectionSet) : 0);
  }, 0);
}

/** The cost of one whole order (what WholeOrder asks of each order: each field 1) and of what it asks of the customer but its orders. */
export const WHOLE_ORDER_COST = fieldsOf(WHOLE_ORDER_FIELDS);
const CUSTOMER_COST = fieldsOf(CUSTOMER_SELECTION);

/** The cost of wholeOrderPage(first): me, the customer's fields, orderCount, orders and its page. */
export const wholeOrderPageCost = (first: number) => 1 + CUSTOMER_COST + 1 + 1 + WHOLE_ORDER_COST * first;

function pageSizeFamily(): HostileRequest[] {
  const family = 'page sizes';
  // Refused before it runs, whether `first` is a literal, a variable or a variable's default.
  const tooCostly = (cost: number): Expected => ({
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: new RegExp(`^Query cost limit of ${LIMITS.maxCost} exceeded, found ${cost}: `),
  });
  // The smallest page of whole orders past the limit.
  const tooMany = Math.floor((LIMITS.maxCost - wholeOrderPageCost(0)) / WHOLE_ORDER_COST) + 1;
  const requests: HostileRequest[] = [];
  for (const first of [100, tooMany]) {
    requests.push(
      document(family, `${first} whole orders, first as a literal`, wholeOrderPage(first), tooCostly(wholeOrderPageCost(first))),
      document(family, `${first} whole orders, first as a variable`, wholeOrderPage('$first'), tooCostly(wholeOrderPageCost(first)), {
        variables: { first },
      }),
    );
  }
  const largest = 2 ** 31 - 1;
  const ids = 'query ($n: Int) { orders(first: $n) { id } }';
  requests.push(
    document(family, `${largest} order ids, first as a literal`, `{ orders(first: ${largest}) { id } }`, tooCostly(largest + 1)),
    document(family, `${largest} order ids, first as a variable`, ids, tooCostly(largest + 1), { variables: { n: largest } }),
    document(
      family,
      '100 whole orders, first from a variable’s default',
      wholeOrderPage('$first').replace('$first: Int', '$first: Int = 100'),
      tooCostly(wholeOrderPageCost(100)),
    ),
    document(
      family,
      '100 whole orders under @include(if: $yes)',
      wholeOrderPage('$first')
        .replace('orders(first: $first, after: $after)', 'orders(first: $first, after: $after) @include(if: $yes)')
        .replace('$first: Int', '$first: Int, $yes: Boolean!'),
      tooCostly(wholeOrderPageCost(100)),
      { variables: { first: 100, yes: true } },
    ),
    // Each alias is another page in the answer, though its calls are made once. (Ten or more
    // pass LIMITS.maxSelections first: see the fragment family.)
    document(
      family,
      '4 aliases of the default page (16 whole orders each)',
      `{ ${wholeOrderMe((fields) => `orderCount ${repeat(4, (i) => `a${i}: orders ${fields}`)}`)} } ${WHOLE_ORDER_FRAGMENTS}`,
      tooCostly(wholeOrderPageCost(0) - 1 + 4 * (1 + 16 * WHOLE_ORDER_COST)),
    ),
  );
  return requests;
}

function bodySizeFamily(): HostileRequest[] {
  const family = 'body size';
  const requests: HostileRequest[] = [];
  const jsonOf = (size: number) => {
    const base = JSON.stringify({ query: '{ me { id } }', variables: { pad: '' } });
    return JSON.stringify({ query: '{ me { id } }', variables: { pad: 'a'.repeat(size - base.length) } });
  };
  const kinds: Record<string, (size: number) => string> = {
    'JSON with a padded variable': jsonOf,
    'garbage bytes': (size) => 'x'.repeat(size),
    'one huge document': (size) => {
      const base = JSON.stringify({ query: '{ me { } }' });
      return JSON.stringify({ query: `{ me { ${'id '.repeat(Math.ceil((size - base.length) / 3))}} }` });
    },
  };
  for (const [kind, build] of Object.entries(kinds)) {
    for (const size of [LIMITS.maxRequestBodyBytes + 1, 100_500, 150_000, 1_000_000, 4_000_000]) {
      requests.push(rawPost(family, `${size} bytes of ${kind}, with Content-Length`, () => build(size), TOO_LARGE));
    }
    // Without Content-Length (chunked): the limit must hold while the body streams in.
    for (const size of [LIMITS.maxRequestBodyBytes + 1, 250_000, 2_000_000, 20_000_000]) {
      requests.push({
        ...rawPost(family, `${size} bytes of ${kind}, chunked`, () => new TextEncoder().encode(build(size)), TOO_LARGE),
        transport: 'chunked',
      });
    }
  }
  // Compressed bodies small on the wire that inflate beyond the limit.
  requests.push(
    rawPost(family, 'gzip bomb: 5 MB inflated from a few KB', () => new Uint8Array(gzipSync(jsonOf(5_000_000))), COMPRESSED_BODY, {
      ...JSON_POST,
      'content-encoding': 'gzip',
    }),
    rawPost(family, 'deflate bomb: 1 MB inflated', () => new Uint8Array(deflateSync(jsonOf(1_000_000))), COMPRESSED_BODY, {
      ...JSON_POST,
      'content-encoding': 'deflate',
    }),
  );
  return requests;
}

function deepFamily(): HostileRequest[] {
  const family = 'deep lists and inputs';
  const requests: HostileRequest[] = [];
  // Within the nesting limit a bad variable fails coercion; beyond it, it is refused before anything reads it.
  const refused = (depth: number): Expected =>
    depth < LIMITS.maxVariableDepth
      ? { status: 400, code: 'BAD_USER_INPUT', message: /^Variable "\$id" got invalid value/ }
      : { status: 400, code: 'BAD_USER_INPUT', message: new RegExp(`may nest ${LIMITS.maxVariableDepth} levels at most`) };
  const withVariable = (value: string) => `{"query":"query ($id: ID!) { order(id: $id) { id } }","variables":{"id":${value}}}`;
  for (const depth of [10, 1_000, 10_000, 45_000]) {
    requests.push(
      rawPost(
        family,
        `variable: lists nested ${depth} deep`,
        () => withVariable('['.repeat(depth) + '"x"' + ']'.repeat(depth)),
        refused(depth),
      ),
    );
    if (depth <= 10_000) {
      requests.push(
        rawPost(
          family,
          `variable: objects nested ${depth} deep`,
          () => withVariable('{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
          refused(depth),
        ),
      );
    }
  }
  // Nesting no input needs is refused wherever it is: it once reached a recursion (the response cache's key).
  const tooDeep = refused(LIMITS.maxVariableDepth);
  requests.push(
    rawPost(
      family,
      'extensions nested 15,000 deep',
      () => `{"query":"{ __typename }","extensions":${'{"a":'.repeat(15_000)}1${'}'.repeat(15_000)}}`,
      tooDeep,
    ),
    rawPost(
      family,
      'an undeclared variable nested 40,000 deep',
      () => `{"query":"{ __typename }","variables":{"unused":${'['.repeat(40_000)}${']'.repeat(40_000)}}}`,
      tooDeep,
    ),
  );
  for (const depth of [10, 100, 300, 700]) {
    requests.push(
      document(
        family,
        `literal: lists nested ${depth} deep`,
        `{ order(id: ${'['.repeat(depth)}"x"${']'.repeat(depth)}) { id } }`,
        invalid(/ID cannot represent/),
      ),
      document(
        family,
        `literal: objects nested ${depth} deep`,
        `{ order(id: ${'{a: '.repeat(depth)}1${'}'.repeat(depth)}) { id } }`,
        invalid(/ID cannot represent/),
      ),
      document(
        family,
        `variable type: lists nested ${depth} deep`,
        `query ($x: ${'['.repeat(depth)}ID${']'.repeat(depth)}) { order(id: $x) { id } }`,
        invalid(/Variable "\$x" of type .* used in position expecting type "ID!"/),
      ),
    );
  }
  requests.push(
    document(
      family,
      'enum argument as nested lists',
      `{ orders { payments(feeType: [[[ORDER_FEE]]]) { id } } }`,
      invalid(/Enum "FeeType" cannot represent non-enum value/),
    ),
    document(
      family,
      'enum argument: unknown value',
      `{ orders { payments(feeType: EVERYTHING) { id } } }`,
      invalid(/Value "EVERYTHING" does not exist in "FeeType" enum/),
    ),
  );
  return requests;
}

function directiveFamily(): HostileRequest[] {
  const family = 'directives';
  const requests: HostileRequest[] = [];
  for (const n of [21, 30, 100, 300]) {
    requests.push(
      document(
        family,
        `@include(if: true) on ${n} fields`,
        `{ orders { id } me { ${repeat(n, () => 'id @include(if: true)')} } }`,
        armor('directives'),
      ),
      document(
        family,
        `@include on ${n} inline fragments`,
        `{ me { ${repeat(n, () => '... @include(if: true) { id }')} } }`,
        armor('directives'),
      ),
    );
  }
  for (const n of [21, 50, 200]) {
    requests.push(
      document(
        family,
        `@skip(if: false) ×${n} on one field`,
        `{ orders { id } me { id ${'@skip(if: false) '.repeat(n)}} }`,
        armor('directives'),
      ),
    );
  }
  requests.push(
    document(family, 'unknown directive', `{ me { id @foo } }`, invalid(/Unknown directive "@foo"/)),
    document(family, 'unknown directive with arguments', `{ me { id @foo(bar: 1, baz: [1, 2]) } }`, invalid(/Unknown directive "@foo"/)),
    document(family, 'unknown directive on the operation', `query @foo { me { id } }`, invalid(/Unknown directive "@foo"/)),
    document(family, '21 unknown directives', `{ me { ${repeat(21, (i) => `id @d${i}`)} } }`, armor('directives')),
    document(family, '@deprecated on a field', `{ me { id @deprecated } }`, invalid(/Directive "@deprecated" may not be used on FIELD/)),
    document(
      family,
      '@specifiedBy on a field',
      `{ me { id @specifiedBy(url: "https://example.test") } }`,
      invalid(/Directive "@specifiedBy" may not be used on FIELD/),
    ),
    document(family, '@include without its argument', `{ me { id @include } }`, invalid(/argument "if" of type "Boolean!" is required/)),
    document(family, '@include(if: "yes")', `{ me { id @include(if: "yes") } }`, invalid(/Boolean cannot represent a non boolean value/)),
    document(family, '@include(if: $undeclared)', `{ me { id @include(if: $nope) } }`, invalid(/Variable "\$nope" is not defined/)),
    document(
      family,
      '@include on the operation',
      `query @include(if: true) { me { id } }`,
      invalid(/Directive "@include" may not be used on QUERY/),
    ),
  );
  return requests;
}

function operationFamily(): HostileRequest[] {
  const family = 'operations';
  const off = (request: HostileRequest): HostileRequest => ({ ...request, target: 'introspectionOff' });
  const disabled = invalid(/GraphQL introspection has been disabled/);
  const requests: HostileRequest[] = [
    // With INTROSPECTION=off, naming the operation after the meta fields changes nothing.
    off(
      document(
        family,
        'query __schema selecting __schema (introspection off)',
        `query __schema { __schema { types { name } } me { id } }`,
        disabled,
      ),
    ),
    off(
      document(
        family,
        'query __type selecting __type (introspection off)',
        `query __type { __type(name: "Order") { name } me { id } }`,
        disabled,
      ),
    ),
    off(
      document(
        family,
        'query __schema: aliased __schema (introspection off)',
        `query __schema { s: __schema { queryType { name } } me { id } }`,
        disabled,
      ),
    ),
    off(
      document(
        family,
        'query __type: __type in a fragment (introspection off)',
        `query __type { ...F } fragment F on Query { __type(name: "Customer") { name } me { id } }`,
        disabled,
      ),
    ),
    off(document(family, 'IntrospectionQuery (introspection off)', getIntrospectionQuery(), disabled)),
    off(
      document(
        family,
        'unknown field: no suggestions (introspection off)',
        `{ mee { id } }`,
        invalid(/^Cannot query field "mee" on type "Query"\.(?!.*Did you mean)/),
      ),
    ),
    off(
      document(
        family,
        'unknown enum value: no suggestions (introspection off)',
        `{ me { orders { payments(feeType: ORDER_FEES) { id } } } }`,
        invalid(/^Value "ORDER_FEES" does not exist in "FeeType" enum\.$/),
      ),
    ),
    off(
      document(
        family,
        'unknown enum value in a variable: no suggestions (introspection off)',
        `query ($f: FeeType!) { me { orders { payments(feeType: $f) { id } } } }`,
        {
          status: 400,
          code: 'BAD_USER_INPUT',
          message: /^Variable "\$f" got invalid value "ORDER_FEES"; Value "ORDER_FEES" does not exist in "FeeType" enum\.$/,
        },
        { variables: { f: 'ORDER_FEES' } },
      ),
    ),
    // Operations named after meta fields, with something else wrong (introspection on).
    document(family, 'query __schema with 21 aliases', `query __schema { ${repeat(21, (i) => `a${i}: orders { id }`)} }`, armor('aliases')),
    document(
      family,
      'query __type with a fragment cycle',
      `query __type { me { ...A } } fragment A on Customer { ...A }`,
      invalid(/within itself/),
    ),
    document(family, 'anonymous and named', `{ me { id } } query B { orders { id } }`, UNRESOLVED),
    document(
      family,
      'anonymous and named, operationName B',
      `{ me { id } } query B { orders { id } }`,
      invalid(/This anonymous operation must be the only defined operation/),
      { operationName: 'B' },
    ),
    document(family, 'two anonymous operations', `{ me { id } } { orders { id } }`, UNRESOLVED),
    document(family, 'operationName missing from the document', `query A { me { id } } query B { orders { id } }`, UNRESOLVED, {
      operationName: 'C',
    }),
    document(
      family,
      'two operations named A',
      `query A { me { id } } query A { orders { id } }`,
      invalid(/There can be only one operation named "A"/),
      { operationName: 'A' },
    ),
    document(
      family,
      'query and mutation named alike',
      `query A { me { id } } mutation A { login(username: "a", password: "b") { accessToken } }`,
      invalid(/There can be only one operation named "A"/),
      { operationName: 'A' },
    ),
    document(
      family,
      'subscription to a query field',
      `subscription { me { id } }`,
      invalid(/Cannot query field "me" on type "Subscription"/),
    ),
    document(
      family,
      'subscription named __schema',
      `subscription __schema { orders { id } }`,
      invalid(/Cannot query field "orders" on type "Subscription"/),
    ),
    document(
      family,
      'subscription to two fields (aliases)',
      `subscription { a: orderUpdates { observedAt } b: orderUpdates { observedAt } }`,
      invalid(/must select only one top level field/),
    ),
  ];
  for (const n of [2, 10, 100]) {
    requests.push(
      document(
        family,
        `${n} named operations without operationName`,
        repeat(n, (i) => `query Q${i} { me { id } }`),
        UNRESOLVED,
      ),
    );
  }
  for (const [kind, operationName] of [
    ['number', 42],
    ['boolean', true],
    ['array', ['A']],
    ['object', { name: 'A' }],
  ] as const) {
    requests.push(
      document(family, `operationName as a ${kind}`, `query A { me { id } } query B { orders { id } }`, UNRESOLVED, { operationName }),
    );
  }
  return requests;
}

function garbageFamily(token: () => string): HostileRequest[] {
  const family = 'garbage bodies';
  const invalidJson = badRequest(/^POST body sent invalid JSON\.$/);
  const noQuery = badRequest(/^Must provide query string\.$/);
  const cases: Array<[string, () => string | Uint8Array<ArrayBuffer>, Expected]> = [
    ['not JSON', () => 'hello', invalidJson],
    ['empty', () => '', invalidJson],
    ['whitespace', () => ' \n\t ', invalidJson],
    ['truncated JSON', () => '{"query": "{ me { id } }"', invalidJson],
    ['trailing garbage', () => '{"query": "{ me { id } }"} xyz', invalidJson],
    ['binary', () => new Uint8Array([0, 255, 1, 2, 0xc3, 0x28, 0xfe, 0xff]), invalidJson],
    ['NaN', () => 'NaN', invalidJson],
    ['only opening brackets', () => '['.repeat(50_000), invalidJson],
    ['single quotes', () => "{'query': '{ me { id } }'}", invalidJson],
    // The caller's own secret, in a body that fails to parse, must not come back.
    [
      'truncated JSON holding a refresh token',
      () => `{"query":"mutation { refreshTokens(refreshToken: \\"${token()}\\") { accessToken } }"`,
      invalidJson,
    ],
    ['JSON null', () => 'null', badRequest(/^POST body is expected to be object but received null$/)],
    ['JSON true', () => 'true', badRequest(/^POST body is expected to be object but received boolean$/)],
    ['JSON number', () => '42', badRequest(/^POST body is expected to be object but received number$/)],
    ['JSON string', () => '"{ me { id } }"', badRequest(/^POST body is expected to be object but received string$/)],
    ['JSON empty array (batching is off)', () => '[]', badRequest(/^Batching is not supported\.$/)],
    ['JSON array of one request (batching is off)', () => '[{"query":"{ me { id } }"}]', badRequest(/^Batching is not supported\.$/)],
    [
      'JSON array of 100 requests (batching is off)',
      () => JSON.stringify(range(100).map(() => ({ query: '{ me { id } }' }))),
      badRequest(/^Batching is not supported\.$/),
    ],
    ['empty object', () => '{}', noQuery],
    ['variables only', () => '{"variables": {"id": "1"}}', noQuery],
    ['{"query": null}', () => '{"query": null}', noQuery],
    ['{"query": 42}', () => '{"query": 42}', badRequest(/^Expected "query" param to be a string, but given number\.$/)],
    ['{"query": true}', () => '{"query": true}', badRequest(/^Expected "query" param to be a string, but given boolean\.$/)],
    ['{"query": []}', () => '{"query": []}', badRequest(/^Expected "query" param to be a string, but given array\.$/)],
    ['{"query": {}}', () => '{"query": {}}', badRequest(/^Expected "query" param to be a string, but given object\.$/)],
    [
      '__proto__ in the body',
      () => '{"query":"{ me { id } }","__proto__":{"query":"{ orders { id } }"}}',
      badRequest(/^Unexpected parameter "__proto__" in the request body\.$/),
    ],
    ['unknown parameter', () => '{"query":"{ me { id } }","evil":1}', badRequest(/^Unexpected parameter "evil" in the request body\.$/)],
    [
      'NUL byte in the document',
      () => '{"query":"{ me\\u0000 { id } }"}',
      { status: 400, code: 'GRAPHQL_PARSE_FAILED', message: /^Syntax Error: Unexpected character: U\+0000\.$/ },
    ],
    [
      'lone surrogate in the document',
      () => '{"query":"{ me \\ud800 { id } }"}',
      { status: 400, code: 'GRAPHQL_PARSE_FAILED', message: /^Syntax Error/ },
    ],
    [
      'an empty document',
      () => '{"query":""}',
      { status: 400, code: 'GRAPHQL_PARSE_FAILED', message: /^Syntax Error: Unexpected <EOF>\.$/ },
    ],
    [
      'only a comment',
      () => '{"query":"# nothing here"}',
      { status: 400, code: 'GRAPHQL_PARSE_FAILED', message: /^Syntax Error: Unexpected <EOF>\.$/ },
    ],
    ['a type definition', () => '{"query":"type Evil { a: Int }"}', UNRESOLVED],
    [
      'a type definition beside a query',
      () => '{"query":"type Evil { a: Int } { me { id } }"}',
      invalid(/The "Evil" definition is not executable/),
    ],
  ];
  return cases.map(([name, body, expected]) => rawPost(family, name, body, expected));
}

function contentTypeFamily(): HostileRequest[] {
  const family = 'content types';
  const json = JSON.stringify({ query: '{ me { id } }' });
  const form = () => {
    const data = new FormData();
    data.set('operations', json);
    data.set('map', '{}');
    return data;
  };
  const unsupported: Expected = { status: 415, emptyBody: true };
  const post = (
    name: string,
    headers: Record<string, string>,
    body: () => string | Uint8Array<ArrayBuffer> | FormData,
    expected: Expected,
  ): HostileRequest => ({
    family,
    name,
    method: 'POST',
    headers: { accept: 'application/graphql-response+json', ...headers },
    body,
    expected,
  });
  return [
    // "Simple" requests a browser sends cross-site without a preflight: CSRF prevention.
    post('text/plain', { 'content-type': 'text/plain' }, () => json, CSRF_REFUSED),
    post('text/plain; charset=utf-8', { 'content-type': 'text/plain; charset=utf-8' }, () => json, CSRF_REFUSED),
    // What a browser still sends as simple, however it is spelled.
    post('TEXT/PLAIN', { 'content-type': 'TEXT/PLAIN' }, () => json, CSRF_REFUSED),
    post('text/plain with a space before it', { 'content-type': ' text/plain' }, () => json, CSRF_REFUSED),
    post('Multipart/Form-Data ;boundary=x', { 'content-type': 'Multipart/Form-Data ;boundary=x' }, () => json, CSRF_REFUSED),
    post(
      'application/x-www-form-urlencoded',
      { 'content-type': 'application/x-www-form-urlencoded' },
      () => `query=${encodeURIComponent('{ me { id } }')}`,
      CSRF_REFUSED,
    ),
    post(
      'application/x-www-form-urlencoded mutation',
      { 'content-type': 'application/x-www-form-urlencoded' },
      () => `query=${encodeURIComponent('mutation { login(username: "a", password: "b") { accessToken } }')}`,
      CSRF_REFUSED,
    ),
    post('multipart/form-data', {}, form, CSRF_REFUSED),
    // Bytes, so that fetch adds no text/plain of its own.
    post('no content type', {}, () => new TextEncoder().encode(json), CSRF_REFUSED),
    // With the header, types the gateway does not speak.
    post('text/plain with the CSRF header', { 'content-type': 'text/plain', ...CSRF }, () => json, unsupported),
    post('application/xml', { 'content-type': 'application/xml', ...CSRF }, () => '<query>{ me { id } }</query>', unsupported),
    post('text/html', { 'content-type': 'text/html', ...CSRF }, () => json, unsupported),
    post('application/octet-stream', { 'content-type': 'application/octet-stream', ...CSRF }, () => json, unsupported),
    post('image/png', { 'content-type': 'image/png', ...CSRF }, () => json, unsupported),
    post(
      'unknown Content-Encoding',
      { 'content-type': 'application/json', 'content-encoding': 'br2', ...CSRF },
      () => json,
      COMPRESSED_BODY,
    ),
    post(
      'gzip Content-Encoding over plain text',
      { 'content-type': 'application/json', 'content-encoding': 'gzip', ...CSRF },
      () => json,
      COMPRESSED_BODY,
    ),
    // Nothing the caller accepts: refused, and before anything runs.
    post('Accept: application/xml only', { 'content-type': 'application/json', accept: 'application/xml' }, () => json, {
      status: 406,
      emptyBody: true,
    }),
    post(
      'Accept: application/xml only, a login mutation',
      { 'content-type': 'application/json', accept: 'application/xml' },
      () => JSON.stringify({ query: 'mutation { login(username: "ready@demo.test", password: "x") { accessToken } }' }),
      { status: 406, emptyBody: true },
    ),
  ];
}

function getFamily(): HostileRequest[] {
  const family = 'GET';
  const login = 'mutation { login(username: "ready@demo.test", password: "x") { accessToken } }';
  const get = (name: string, query: Record<string, string>, headers: Record<string, string>, expected: Expected): HostileRequest => ({
    family,
    name,
    method: 'GET',
    path: `/graphql?${new URLSearchParams(query)}`,
    headers: { accept: 'application/json', ...headers },
    expected,
  });
  const notOnGet = badRequest(/^Can only perform a mutation operation from a POST request\.$/, 405);
  return [
    get('mutation', { query: login }, CSRF, notOnGet),
    get('mutation, accepting graphql-response+json', { query: login }, { ...CSRF, accept: 'application/graphql-response+json' }, notOnGet),
    get(
      'mutation picked by operationName',
      { query: `query A { __typename } ${login.replace('mutation', 'mutation B')}`, operationName: 'B' },
      CSRF,
      notOnGet,
    ),
    get(
      'mutation with variables',
      { query: 'mutation ($u: String!) { login(username: $u, password: "x") { accessToken } }', variables: '{"u":"a"}' },
      CSRF,
      notOnGet,
    ),
    // A GET needs no CSRF header (SECURITY.md, CSRF; its queries are answered, see
    // get-queries.test.ts): without one, what is refused with it is refused all the same.
    get('mutation without the CSRF header', { query: login }, {}, notOnGet),
    get(
      'mutation without the CSRF header, form content type',
      { query: login },
      { 'content-type': 'application/x-www-form-urlencoded' },
      notOnGet,
    ),
    get(
      'variables that are not JSON, without the CSRF header',
      { query: 'query ($id: ID!) { order(id: $id) { id } }', variables: '{nope' },
      { accept: 'application/graphql-response+json' },
      { status: 400, code: 'BAD_REQUEST', message: /variables/ },
    ),
    get(
      'variables that are not JSON',
      { query: 'query ($id: ID!) { order(id: $id) { id } }', variables: '{nope' },
      { ...CSRF, accept: 'application/graphql-response+json' },
      { status: 400, code: 'BAD_REQUEST', message: /variables/ },
    ),
    get(
      'extensions that are not JSON',
      { query: '{ me { id } }', extensions: '{nope' },
      { ...CSRF, accept: 'application/graphql-response+json' },
      { status: 400, code: 'BAD_REQUEST', message: /extensions/ },
    ),
    {
      family,
      name: 'form POST with variables that are not JSON',
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/graphql-response+json', ...CSRF },
      body: () => new URLSearchParams({ query: 'query ($id: ID!) { order(id: $id) { id } }', variables: '{nope' }).toString(),
      expected: { status: 400, code: 'BAD_REQUEST', message: /variables/ },
    },
    get(
      'no query, accepting graphql-response+json',
      {},
      { ...CSRF, accept: 'application/graphql-response+json' },
      badRequest(/^Must provide query string\.$/),
    ),
    get('a 20 KB URL', { query: `{ me { ${'id '.repeat(7_000)}} }` }, CSRF, { status: 431, emptyBody: true }),
  ];
}

function methodFamily(): HostileRequest[] {
  const family = 'methods';
  const json = () => JSON.stringify({ query: '{ me { id } }' });
  const onlyGetPost = badRequest(/^GraphQL only supports GET and POST requests\.$/, 405);
  const request = (
    method: string,
    headers: Record<string, string>,
    body: (() => string) | undefined,
    expected: Expected,
  ): HostileRequest => ({
    family,
    name: `${method}${headers['x-graphql-yoga-csrf'] ? ' with the CSRF header' : ''}${body ? ' with a JSON body' : ''}`,
    method,
    headers: { ...JSON_POST, ...headers },
    ...(body ? { body } : {}),
    expected,
  });
  return [
    request('PUT', {}, json, onlyGetPost),
    request('PUT', CSRF, json, onlyGetPost),
    request('PATCH', {}, json, onlyGetPost),
    request('PATCH', CSRF, json, onlyGetPost),
    request('DELETE', {}, undefined, onlyGetPost),
    request('DELETE', CSRF, json, onlyGetPost),
    request('PROPFIND', CSRF, undefined, onlyGetPost),
    // No content type: a "simple" request, so CSRF prevention answers first.
    { ...request('HEAD', {}, undefined, { status: 403, emptyBody: true }), headers: { accept: 'application/json' } },
    request('HEAD', CSRF, undefined, { status: 405, emptyBody: true }),
  ];
}

function variableFamily(): HostileRequest[] {
  const family = 'variables';
  const order = 'query ($id: ID!) { order(id: $id) { id } }';
  const login = 'mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }';
  const payments = 'query ($f: FeeType) { orders { payments(feeType: $f) { id } } }';
  const coercion = (variable: string): Expected => ({
    status: 400,
    code: 'BAD_USER_INPUT',
    message: new RegExp(`^Variable "\\$${variable}"`),
  });
  const requests: HostileRequest[] = [];
  for (const [kind, value] of [
    ['an object', { a: 1 }],
    ['a list', ['1']],
    ['a boolean', true],
    ['a float', 1.5],
    ['null', null],
  ] as const) {
    requests.push(document(family, `ID! given ${kind}`, order, coercion('id'), { variables: { id: value } }));
  }
  for (const [kind, value] of [
    ['a number', 42],
    ['an object', { a: 'b' }],
    ['null', null],
    ['a list', ['a', 'b']],
  ] as const) {
    // Refused before any upstream call: a login with a non-string username never reaches /auth.
    requests.push(document(family, `login username given ${kind}`, login, coercion('u'), { variables: { u: value, p: 'x' } }));
  }
  requests.push(
    document(family, 'FeeType given an unknown value', payments, coercion('f'), { variables: { f: 'EVERYTHING' } }),
    document(family, 'FeeType given a number', payments, coercion('f'), { variables: { f: 1 } }),
    document(family, 'required ID missing', order, coercion('id')),
    document(family, 'required login variables missing', login, coercion('u'), { variables: {} }),
    document(
      family,
      'variables: a string',
      order,
      badRequest(/^Expected "variables" param to be empty or an object, but given string\.$/),
      { variables: '{"id":"1"}' },
    ),
    document(
      family,
      'variables: a number',
      order,
      badRequest(/^Expected "variables" param to be empty or an object, but given number\.$/),
      { variables: 1 },
    ),
    document(family, 'variables: a list', order, badRequest(/^Expected "variables" param to be empty or an object, but given array\.$/), {
      variables: [{ id: '1' }],
    }),
    document(
      family,
      'extensions: a string',
      '{ me { id } }',
      badRequest(/^Expected "extensions" param to be empty or an object, but given string\.$/),
      { extensions: 'x' },
    ),
    document(family, 'undeclared variable', '{ order(id: $id) { id } }', invalid(/Variable "\$id" is not defined/), {
      variables: { id: '1' },
    }),
    document(family, 'variable of an unknown type', 'query ($id: Nope!) { order(id: $id) { id } }', invalid(/Unknown type "Nope"/), {
      variables: { id: '1' },
    }),
    document(
      family,
      'variable declared twice',
      'query ($id: ID!, $id: ID!) { order(id: $id) { id } }',
      invalid(/There can be only one variable named "\$id"/),
      { variables: { id: '1' } },
    ),
    document(
      family,
      'default of the wrong type',
      'query ($id: ID = {a: 1}) { order(id: $id) { id } }',
      invalid(/ID cannot represent|used in position expecting type "ID!"/),
    ),
    document(
      family,
      'variable of an output type',
      'query ($o: Order) { me { id } }',
      invalid(/Variable "\$o" cannot be non-input type "Order"/),
    ),
  );
  return requests;
}

/**
 * The whole corpus; every request must be refused without a single upstream call. `token`
 * is read when a body is made (the corpus is built before the test logs in).
 */
export function buildCorpus({ token }: { token: () => string }): HostileRequest[] {
  return [
    ...depthFamily(),
    ...aliasFamily(),
    ...repeatedFieldsFamily(),
    ...fragmentFamily(),
    ...pageSizeFamily(),
    ...bodySizeFamily(),
    ...deepFamily(),
    ...directiveFamily(),
    ...operationFamily(),
    ...garbageFamily(token),
    ...contentTypeFamily(),
    ...getFamily(),
    ...methodFamily(),
    ...variableFamily(),
  ];
}

/**
 * What a response body must never hold: a secret of the test (token, password), an
 * upstream address, or a stack trace. Returns the problems found (empty when clean).
 */
export function findLeaks(body: string, secrets: readonly string[]): string[] {
  const problems: string[] = [];
  for (const secret of secrets) if (secret && body.includes(secret)) problems.push(`holds the secret ${secret.slice(0, 12)}…`);
  if (body.includes('127.0.0.1:')) problems.push('holds an address 127.0.0.1:<port>');
  // Linear-time patterns: these run over every answer of the fuzzing too.
  if (/(?:\n|\\n)\s*at \S|\bat (?:async )?\S{1,200} \((?:file:\/\/|node:|\/)/.test(body)) problems.push('holds a stack frame');
  if (/"(?:stack|stacktrace)"\s*:/.test(body)) problems.push('holds a "stack" member');
  if (/\.(?:ts|mts|cts|js|mjs|cjs):\d+:\d+/.test(body)) problems.push('holds a source position');
  return problems;
}
