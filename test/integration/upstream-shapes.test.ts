// What each upstream body must look like (src/upstream/shapes.ts), against a hostile upstream
// derived from the contract: every field of every operation's answer, as
// upstream/openapi.yaml lists them, sent back as each of a hostile set of values (arrays
// nested 5,000 deep, a 1 MB string, the wrong type, 1e309, null, and a `__proto__` key beside
// it), one field at a time, through both executors (graphql-jit for a registered document, the
// standard one for a document run once). The gateway answers every time, logs nothing at error
// level, pollutes no prototype, and a value of the wrong shape costs exactly the fields that
// read it: each is null with UPSTREAM_ERROR, everything else is what it was.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { LoginDocument, RefreshTokensDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { ORDER_FIELD_OPERATIONS } from '../../src/graph/order-fields.js';
import { OPERATION_NAMES, type OperationName } from '../../src/upstream/contract.js';
import { STRING_LENGTHS, type Shape, type StringKind } from '../../src/upstream/models.js';
import { responseShape } from '../../src/upstream/shapes.js';
import { createSimulator, type InProcessSimulator } from '../../src/simulator/server.js';
import { demoCustomer, demoToken } from '../helpers/demo.js';
import { ORDER_FIELDS_OF } from '../helpers/faults.js';
import { inProcessGateway, type ResponseError } from '../helpers/harness.js';
import { upstreamFetch } from '../helpers/in-process-transport.js';
import { capturedLogLines } from '../helpers/log-capture.js';
import { ROOT } from '../helpers/process.js';
import { createUpstreamProxy } from '../helpers/upstream-proxy.js';

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  $ref?: string;
  oneOf?: Schema[];
}

const contract = parseYaml(readFileSync(join(ROOT, 'upstream/openapi.yaml'), 'utf8')) as {
  paths: Record<
    string,
    Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>
  >;
  components: { schemas: Record<string, Schema> };
};

/** A schema with its $ref followed, and of a `oneOf` with null, the other branch. */
function resolved(schema: Schema): Schema {
  if (schema.$ref) return resolved(contract.components.schemas[schema.$ref.split('/').at(-1)!]!);
  if (schema.oneOf) return resolved(schema.oneOf.find((branch) => branch.type !== 'null')!);
  return schema;
}

type Path = (string | number)[];

/** Every field under a schema (an object's properties, a list's items as item 0), each as the path to it. */
function fieldPaths(schema: Schema, prefix: Path = []): Path[] {
  const resolvedSchema = resolved(schema);
  if (resolvedSchema.items) return fieldPaths(resolvedSchema.items, [...prefix, 0]);
  return Object.entries(resolvedSchema.properties ?? {}).flatMap(([key, property]) => [
    [...prefix, key],
    ...fieldPaths(property, [...prefix, key]),
  ]);
}

/** Each operation's answer, as the contract describes it. */
const ANSWERS = new Map(
  Object.values(contract.paths).flatMap((methods) =>
    Object.values(methods).map(
      (spec) => [spec.operationId as OperationName, spec.responses['200']!.content!['application/json']!.schema] as const,
    ),
  ),
);

/** The objects a `__proto__` key is put in: the answer itself and every object field. */
const objectPaths = (operation: OperationName): Path[] => {
  const root: Path = resolved(ANSWERS.get(operation)!).items ? [0] : [];
  return [root, ...fieldPaths(ANSWERS.get(operation)!).filter((path) => resolved(schemaAt(operation, path)).properties)];
};

function schemaAt(operation: OperationName, path: Path): Schema {
  let schema = resolved(ANSWERS.get(operation)!);
  for (const step of path) schema = resolved(typeof step === 'number' ? schema.items! : schema.properties![step]!);
  return schema;
}

// The hostile values, as the raw JSON the upstream sends. `strict`: not of any field's shape,
// so whatever the answer loses must be a field null with its UPSTREAM_ERROR.
const HOSTILE: { name: string; json: string; strict: boolean }[] = [
  { name: 'arrays nested 5,000 deep', json: `${'['.repeat(5000)}${']'.repeat(5000)}`, strict: true },
  { name: 'the wrong type', json: '["a",["b"]]', strict: true },
  { name: '1e309', json: '1e309', strict: true },
  { name: 'a 1 MB string', json: JSON.stringify('x'.repeat(1_000_000)), strict: false },
  { name: 'null', json: 'null', strict: false },
];

/** The shape shapes.ts reads a field as (the contract's `response`, then the model's fields), by its path in the answer. */
function shapeAt(operation: OperationName, path: Path): Shape | undefined {
  let shape: Shape | undefined = responseShape(operation);
  for (const step of path) {
    if (shape === undefined || typeof shape === 'string') return undefined;
    shape = typeof step === 'number' ? ('list' in shape ? shape.list : undefined) : 'fields' in shape ? shape.fields[step] : undefined;
  }
  return shape;
}

/**
 * A value just past the format its field is held to (models.ts), as raw JSON: a string one
 * longer than its kind allows, a currency that is no ISO 4217 code, an integer past a GraphQL
 * Int, a list one item longer than its `maxItems` (of empty objects: every listed field's
 * items have no required field), an amount or a date-time as text past the longest either can
 * be. None for a field whose kind has no bound.
 */
function pastItsFormat(shape: Shape | undefined): string | undefined {
  if (shape === undefined) return undefined;
  if (typeof shape !== 'string')
    return 'list' in shape
      ? `[${Array(shape.maxItems + 1)
          .fill('{}')
          .join(',')}]`
      : undefined;
  if (shape in STRING_LENGTHS) return JSON.stringify('x'.repeat(STRING_LENGTHS[shape as StringKind] + 1));
  if (shape === 'currency') return '"USDX"';
  if (shape === 'int') return String(2 ** 31);
  if (shape === 'amount') return JSON.stringify('1'.repeat(41));
  if (shape === 'dateTime') return JSON.stringify(`2026-11-28T09:30:00.000Z${' '.repeat(41)}`);
  return undefined;
}

interface Case {
  operation: OperationName;
  path: Path;
  /** The raw JSON put at the path; with `proto`, put in a `__proto__` key of the object at the path instead. */
  json: string;
  proto?: boolean;
}

const PLACEHOLDER = '\u0000hostile\u0000';

/** The answer's text with the case's value in place: the containers on the way made if the answer has none. */
function poisoned(text: string, { path, json, proto }: Case): string {
  const body = JSON.parse(text) as unknown;
  let at = body as Record<string | number, unknown>;
  const steps = proto ? [...path, '__proto__'] : path;
  steps.slice(0, -1).forEach((step, i) => {
    const next = steps[i + 1];
    if (typeof at[step] !== 'object' || at[step] === null) at[step] = typeof next === 'number' ? [] : {};
    at = at[step] as Record<string | number, unknown>;
  });
  // An own `__proto__` key, as JSON.parse makes one (assignment would set the prototype instead).
  Object.defineProperty(at, steps.at(-1)!, { value: PLACEHOLDER, enumerable: true, writable: true, configurable: true });
  return JSON.stringify(body).replace(JSON.stringify(PLACEHOLDER), json);
}

/** The paths where `after` lost what `before` had: each must be null now. Anything else that differs is returned as a change. */
function compare(before: unknown, after: unknown, path: Path = [], lost: Path[] = [], changed: Path[] = []) {
  if (JSON.stringify(before) === JSON.stringify(after)) return { lost, changed };
  if (after === null) lost.push(path);
  else if (typeof before === 'object' && before !== null && typeof after === 'object') {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of keys)
      compare(
        (before as Record<string, unknown>)[key],
        (after as Record<string, unknown>)[key],
        [...path, Array.isArray(after) ? Number(key) : key],
        lost,
        changed,
      );
  } else changed.push(path);
  return { lost, changed };
}

/** Whether the error is the reason the path was lost: the field's own, or one below it that a non-null field carried up. */
const covers = (error: ResponseError, path: Path) =>
  !!error.path && path.every((step, i) => i >= error.path!.length || step === error.path![i]);

let simulator: InProcessSimulator;
let upstream: ReturnType<typeof createUpstreamProxy>;
let gateway: ReturnType<typeof inProcessGateway>;
let token: string;
/** The cases each request carries, by its X-Request-Id: one for each operation at most. */
const cases = new Map<string, Case[]>();
const errorLines = () => capturedLogLines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);

beforeAll(async () => {
  simulator = createSimulator({ latencyMs: 0 });
  const ready = demoCustomer(simulator, 'ready@demo.test');
  const login = await upstreamFetch(simulator)(`${simulator.urls.AUTH_URL}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: ready.username, password: ready.password }),
  });
  // The upstream poisons the answer of the case a call belongs to (its X-Request-Id, which the
  // gateway forwards). Token sets come from one real login's answer, so the mutations can run
  // any number of times; every other operation's first answer from the simulator is kept and
  // sent again (one customer, one order: the same every time), so a case costs no simulator call.
  const tokenSet = await login.text();
  const first = new Map<OperationName, string>();
  upstream = createUpstreamProxy(simulator, {
    answer: (operation) =>
      operation === 'login' || operation === 'refreshTokens' ? tokenSet : operation ? first.get(operation) : undefined,
    rewrite: (operation, request, text) => {
      if (operation && !first.has(operation)) first.set(operation, text);
      const hostile = cases.get(String(request.headers['x-request-id']))?.find((each) => each.operation === operation);
      return hostile ? poisoned(text, hostile) : text;
    },
  });
  // A request carries six cases of up to a megabyte each: past the default REQUEST_BYTES, which
  // byte-budgets.test.ts tries; the shapes are the subject here.
  gateway = inProcessGateway({ upstream, upstreamTimeoutMs: 10_000, bytes: { request: 64 * 2 ** 20, inFlight: 2 ** 30 } });
  token = await demoToken(simulator, 'ready@demo.test');
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await simulator?.close();
});

// What each operation's answer feeds: its mutation for a token set, the whole order for the rest.
const LOGIN = print(LoginDocument);
const REFRESH = print(RefreshTokensDocument);
const WHOLE_ORDER = print(WholeOrderDocument);
const documentFor = (operation: OperationName) => (operation === 'login' ? LOGIN : operation === 'refreshTokens' ? REFRESH : WHOLE_ORDER);
const VARIABLES: Record<string, Record<string, string>> = {
  [LOGIN]: { username: 'ready@demo.test', password: 'any' },
  [REFRESH]: { refreshToken: 'any' },
};

/** Runs the document for the case (`id`) with the registered text (graphql-jit) and a text of its own (the standard executor). */
async function run(operation: OperationName, id: string) {
  const query = documentFor(operation);
  const variables = VARIABLES[query] ?? {};
  const headers = { authorization: `Bearer ${token}`, 'x-request-id': id };
  return Promise.all([query, `${query}\n# ${id}`].map((text) => gateway.post({ query: text, variables }, headers)));
}

type HostileCase = Case & { strict: boolean; name: string };

const PER_ORDER = new Set<OperationName>(Object.values(ORDER_FIELD_OPERATIONS));
const label = (hostile: HostileCase) =>
  `${hostile.operation} ${hostile.path.join('.')}${hostile.proto ? '.__proto__' : ''} = ${hostile.name}`;

/**
 * The cases as requests. A per-order operation's case goes with one case of each other per-order
 * operation of the same strictness: their fields are apart (all nullable), so what each case
 * costs shows under its own fields (judge holds every loss, change and error there). Every
 * other case is a request of its own.
 */
function requestsOf(all: HostileCase[]): HostileCase[][] {
  const requests: HostileCase[][] = [];
  for (const strict of [true, false]) {
    const queues = [...PER_ORDER].map((operation) => all.filter((c) => c.operation === operation && c.strict === strict));
    for (let i = 0; i < Math.max(...queues.map((queue) => queue.length)); i++) requests.push(queues.flatMap((queue) => queue[i] ?? []));
  }
  return [...all.filter((c) => !PER_ORDER.has(c.operation)).map((c) => [c]), ...requests];
}

/** Whether the path lies under an Order field that one of the request's cases' operations serves. */
const underOwnFields = (request: HostileCase[], path: readonly (string | number)[]) =>
  path[0] === 'me' && path[1] === 'orders' && request.some((c) => ORDER_FIELDS_OF[c.operation]?.includes(path[3] as never));

/** What is wrong with one answer to a request of hostile cases ([] when nothing is). */
function judge(
  request: HostileCase[],
  baseline: unknown,
  { status, body }: { status: number; body: { data?: unknown; errors?: ResponseError[] } },
) {
  const name = request.map(label).join(' & ');
  const violations: string[] = [];
  const errors = body.errors ?? [];
  if (status !== 200 || body.data === undefined) violations.push(`${name}: status ${status}, no data`);
  const foreign = errors.filter((error) => error.extensions?.code !== 'UPSTREAM_ERROR');
  if (foreign.length > 0)
    violations.push(`${name}: ${foreign.map((error) => `${String(error.extensions?.code)} ${error.message}`).join('; ')}`);
  if (!request[0]!.strict) return violations;
  const { lost, changed } = compare(baseline, body.data);
  const uncovered = lost.filter((path) => !errors.some((error) => covers(error, path)));
  if (changed.length > 0 || uncovered.length > 0)
    violations.push(`${name}: changed ${JSON.stringify(changed)}, lost without an error ${JSON.stringify(uncovered)}`);
  if (request.length > 1) {
    const elsewhere = [...lost, ...changed, ...errors.map((error) => error.path ?? [])].filter((path) => !underOwnFields(request, path));
    if (elsewhere.length > 0) violations.push(`${name}: beyond the fields of its operations ${JSON.stringify(elsewhere)}`);
  }
  return violations;
}

describe('a hostile upstream, every field of every answer the contract lists', () => {
  it(
    "answers every time, with no error log and no polluted prototype; a value of no field's shape costs exactly the fields that read it (UPSTREAM_ERROR)",
    { timeout: 600_000 },
    async () => {
      const baselines = new Map<string, unknown>();
      for (const operation of ['login', 'refreshTokens', 'orderDetails'] as const) {
        const answers = await run(operation, `baseline-${operation}`);
        for (const { status, body } of answers) {
          expect(status).toBe(200);
          expect(body.errors ?? []).toEqual([]);
          expect(body.data).toEqual(answers[0]!.body.data);
        }
        baselines.set(documentFor(operation), answers[0]!.body.data);
      }
      const all: HostileCase[] = OPERATION_NAMES.flatMap((operation) => [
        ...fieldPaths(ANSWERS.get(operation)!, resolved(ANSWERS.get(operation)!).items ? [0] : []).flatMap((path) => {
          const past = pastItsFormat(shapeAt(operation, path));
          return [
            ...HOSTILE.map(({ name, json, strict }) => ({ operation, path, json, strict, name })),
            ...(past === undefined ? [] : [{ operation, path, json: past, strict: true, name: 'just past its format' }]),
          ];
        }),
        ...objectPaths(operation).map((path) => ({
          operation,
          path,
          json: '{"polluted":true}',
          proto: true,
          strict: true,
          name: 'a __proto__ key',
        })),
      ]);
      const errorsBefore = errorLines().length;
      const violations: string[] = [];
      let upstreamErrors = 0;
      // Eight requests at a time, each told apart upstream by its request id; logins one at a time
      // (more at once from one address would be the login throttle's business).
      const requests = requestsOf(all);
      expect(requests.flat()).toHaveLength(all.length);
      for (let start = 0; start < requests.length;) {
        const document = documentFor(requests[start]![0]!.operation);
        const width = document === WHOLE_ORDER ? 8 : 1;
        const batch = requests.slice(start, start + width).filter((request) => documentFor(request[0]!.operation) === document);
        const first = start;
        start += batch.length;
        await Promise.all(
          batch.map(async (request, i) => {
            const id = `hostile-${first + i}`;
            cases.set(id, request);
            for (const answer of await run(request[0]!.operation, id)) {
              upstreamErrors += answer.body.errors?.length ?? 0;
              violations.push(...judge(request, baselines.get(document), answer));
            }
            cases.delete(id);
          }),
        );
      }
      expect(violations).toEqual([]);
      expect(errorLines().slice(errorsBefore)).toEqual([]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      // The wrong shapes did reach fields that read them.
      expect(upstreamErrors).toBeGreaterThan(all.length / 2);
      console.info(
        `hostile upstream: ${all.length} cases in ${requests.length} requests × 2 executors over ${OPERATION_NAMES.length} operations, ${upstreamErrors} fields answered UPSTREAM_ERROR`,
      );
      // And it still answers as before.
      const [after] = await run('orderDetails', 'after');
      expect(after!.body).toEqual({ data: baselines.get(WHOLE_ORDER) });
    },
  );
});
