/**
 * Derives the gateway's declaration of its upstream from `upstream/openapi.yaml`: writes
 * `src/upstream/__generated__/contract.ts` (pure data, importing nothing), the operations table
 * that src/upstream/contract.ts reads and the shapes that src/upstream/models.ts reads. Run first
 * by `npm run codegen`; test/integration/contract.test.ts fails when the committed file is not
 * what this writes.
 *
 * Besides the upstream's own facts (`x-base`, `x-active-from`, the parameters with `in`,
 * `required` and `schema.enum`, the responses and schemas), it reads the few the gateway adds,
 * each an `x-` extension (described in the YAML's info): `x-graph`, `x-from`, `x-argument`,
 * `x-stage-refusal`, `x-bearer`, `x-kind`, `x-read-required`; and a 403 response marks a call
 * whose service checks the order's owner. What it cannot map it refuses, naming where.
 *
 * Why a generator of our own rather than a maintained OpenAPI one: the shapes' leaves are the
 * gateway's kinds, each with its bounds (a string's longest length by kind, an ISO currency, a
 * 32-bit int, an epoch, an amount), read by one rule (shapes.ts: a field of the wrong shape is
 * that field's error alone, a required one its object's). openapi-zod-client or @hey-api would
 * write zod schemas that read by another rule, which we would then wrap and copy;
 * openapi-typescript writes types only, and ours already derive from the shapes. What is left to
 * generate is a table of plain data, which a page of code writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';

type Json = Record<string, unknown>;

/** A reason the YAML cannot be mapped, naming where. */
export class DeclarationError extends Error {}
const refuse = (where: string, what: string): never => {
  throw new DeclarationError(`upstream/openapi.yaml, ${where}: ${what}`);
};

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const recordAt = (value: unknown, where: string): Json => (isRecord(value) ? value : refuse(where, 'is not an object'));
const stringsAt = (value: unknown, where: string): string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : refuse(where, 'is not a list of strings');

/**
 * The kinds each JSON type may be read as (models.ts `Leaf`), the first its default: a string
 * is text unless it is a date-time (dateTime) or lists its values (code); `x-kind` names another.
 */
const KINDS_OF_TYPE: Record<string, readonly string[]> = {
  string: ['text', 'id', 'code', 'token', 'currency', 'dateTime'],
  integer: ['int', 'epoch'],
  number: ['number', 'amount'],
  boolean: ['flag'],
};

const KNOWN = {
  operation: ['x-base', 'x-active-from', 'x-graph', 'x-stage-refusal', 'x-bearer'],
  parameter: ['x-from', 'x-argument'],
  schema: ['x-kind', 'x-read-required'],
};
function checkExtensions(node: Json, known: readonly string[], where: string) {
  for (const key of Object.keys(node))
    if (key.startsWith('x-') && !known.includes(key)) refuse(where, `${key} is not an extension the gateway knows (${known.join(', ')})`);
}

/** A shape as models.ts has it: a kind, a list, an object, or the name of a schema's object. */
type Shape = string | { list: Shape; maxItems: number } | { fields: Record<string, Shape>; required?: string[] } | { named: string };

/** A model being read: met again inside itself, it is recursive. */
const READING = 'reading';
/** The models a shape names. */
const modelsIn = (shape: Shape): string[] =>
  typeof shape === 'string'
    ? []
    : 'named' in shape
      ? [shape.named]
      : 'list' in shape
        ? modelsIn(shape.list)
        : Object.values(shape.fields).flatMap(modelsIn);

class Reader {
  /** The object schemas of components/schemas the responses reach, by name, in the order first reached. */
  readonly models = new Map<string, Shape>();
  constructor(private readonly schemas: Json) {}

  model(ref: unknown, where: string): string {
    const name = typeof ref === 'string' && ref.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : undefined;
    if (!name || !/^[A-Z]\w*$/.test(name) || !isRecord(this.schemas[name]))
      return refuse(where, `$ref ${String(ref)} is not a schema of components/schemas`);
    return name;
  }

  shape(node: unknown, where: string): Shape {
    const schema = recordAt(node, where);
    checkExtensions(schema, KNOWN.schema, where);
    if (schema.$ref !== undefined) {
      const name = this.model(schema.$ref, where);
      const target = this.schemas[name] as Json;
      if (target.type !== 'object') return this.shape(target, `components/schemas/${name}`);
      if (this.models.get(name) === READING) refuse(where, `${name} contains itself, which a shape cannot`);
      if (!this.models.has(name)) {
        this.models.set(name, READING);
        this.models.set(name, this.shape(target, `components/schemas/${name}`));
      }
      return { named: name };
    }
    for (const keyword of ['allOf', 'anyOf', 'not'])
      if (schema[keyword] !== undefined) refuse(where, `${keyword} is not read by the gateway`);
    if (schema.oneOf !== undefined) {
      const branches = Array.isArray(schema.oneOf) ? schema.oneOf : [];
      const others = branches.filter((branch) => !(isRecord(branch) && branch.type === 'null'));
      if (branches.length !== 2 || others.length !== 1) refuse(where, 'oneOf is read only as one schema or null');
      return this.shape(others[0], where);
    }
    const types = [schema.type].flat().filter((type) => type !== 'null');
    if (types.length !== 1 || typeof types[0] !== 'string') return refuse(where, 'has no single type (besides null)');
    const type = types[0];
    if (type === 'object') return this.object(schema, where);
    if (schema['x-kind'] !== undefined && type === 'array') refuse(where, 'x-kind is for values, not lists');
    if (type === 'array') {
      if (!Number.isSafeInteger(schema.maxItems)) refuse(where, 'a list needs maxItems: nothing the upstream sends is read at any length');
      return { list: this.shape(schema.items, `${where}[]`), maxItems: schema.maxItems as number };
    }
    const kinds = KINDS_OF_TYPE[type] ?? refuse(where, `type ${type} is not read by the gateway`);
    const kind = schema['x-kind'] ?? (schema.format === 'date-time' ? 'dateTime' : schema.enum ? 'code' : kinds[0]);
    if (typeof kind !== 'string' || !kinds.includes(kind))
      refuse(where, `x-kind ${String(kind)} is not a kind of ${type} (${kinds.join(', ')})`);
    return kind as string;
  }

  object(schema: Json, where: string): Shape {
    if (schema['x-kind'] !== undefined) refuse(where, 'x-kind is for values, not objects');
    const properties = recordAt(schema.properties, `${where}.properties`);
    const fields = Object.fromEntries(Object.entries(properties).map(([field, node]) => [field, this.shape(node, `${where}.${field}`)]));
    const required = stringsAt(schema['x-read-required'] ?? schema.required ?? [], `${where}.x-read-required`);
    const upstream = schema.required === undefined ? [] : stringsAt(schema.required, `${where}.required`);
    for (const field of required) {
      if (!(field in fields)) refuse(where, `required field ${field} is not among its properties`);
      if (!upstream.includes(field)) refuse(where, `x-read-required names ${field}, which the upstream does not require`);
    }
    return required.length > 0 ? { fields, required } : { fields };
  }
}

/** Where a per-order call's parameter comes from: the caller's own order (`x-from`), or the field's argument. */
function parameter(node: unknown, where: string, backsFields: boolean) {
  const spec = recordAt(node, where);
  checkExtensions(spec, KNOWN.parameter, where);
  if (typeof spec.name !== 'string') refuse(where, 'a parameter needs a name');
  const name = spec.name as string;
  const at = `${where} (${name})`;
  if (spec.in !== 'query' && spec.in !== 'path') refuse(at, `a parameter in ${String(spec.in)} is not sent by the gateway`);
  const required = spec.required === true;
  if (spec.in === 'path' && !required) refuse(at, 'a path parameter is required');
  const schema = recordAt(spec.schema, `${at}.schema`);
  if (schema.type !== 'string') refuse(at, 'a parameter is a string');
  const values = schema.enum === undefined ? undefined : stringsAt(schema.enum, `${at}.schema.enum`);
  const from = spec['x-from'];
  if (from !== undefined) {
    const key = typeof from === 'string' ? /^order\.(\w+)$/.exec(from)?.[1] : undefined;
    if (!key) refuse(at, `x-from ${String(from)} is not order.<field>`);
    if (spec['x-argument'] !== undefined || values) refuse(at, 'a parameter taken from the order is neither an argument nor given values');
    if (!required) refuse(at, 'a parameter taken from the order is required');
    return [name, { order: key, required }] as const;
  }
  if (!backsFields) refuse(at, 'has no source: neither x-from, nor a GraphQL field (x-graph) whose argument it could be');
  const argument = spec['x-argument'] ?? name;
  if (typeof argument !== 'string' || !/^[A-Za-z_]\w*$/.test(argument)) refuse(at, `x-argument ${String(argument)} is not a GraphQL name`);
  return [name, values ? { argument, required, enum: values } : { argument, required }] as const;
}

/** The GraphQL fields a call backs (`x-graph`), by the type they are fields of. */
function graphFields(value: unknown, where: string) {
  const entries = value === undefined ? [] : stringsAt(value, `${where}.x-graph`);
  const fields: { orderFields?: string[]; customerFields?: string[] } = {};
  for (const entry of entries) {
    const match = /^(Order|Customer)\.([A-Za-z_]\w*)$/.exec(entry);
    if (!match) refuse(`${where}.x-graph`, `${entry} is not Order.<field> or Customer.<field>`);
    (fields[match![1] === 'Order' ? 'orderFields' : 'customerFields'] ??= []).push(match![2]!);
  }
  return fields;
}

function response(reader: Reader, responses: Json, where: string) {
  const ok = recordAt(responses['200'], `${where}.responses.200`);
  const schema = recordAt(
    recordAt(recordAt(ok.content, `${where} 200 content`)['application/json'], `${where} 200 JSON`).schema,
    `${where} 200 schema`,
  );
  if (schema.$ref !== undefined) {
    const shape = reader.shape(schema, `${where} 200`);
    return typeof shape === 'object' && 'named' in shape
      ? { model: shape.named }
      : refuse(`${where} 200`, 'a response is an object schema of components/schemas');
  }
  if (schema.type !== 'array') return refuse(`${where} 200`, 'a response is a $ref to an object schema or a list of one');
  const list = reader.shape(schema, `${where} 200`) as { list: Shape; maxItems: number };
  if (typeof list.list !== 'object' || !('named' in list.list))
    refuse(`${where} 200`, 'a list response is of an object schema of components/schemas');
  return { model: (list.list as { named: string }).named, list: true, maxItems: list.maxItems };
}

function operation(reader: Reader, path: string, method: string, node: unknown) {
  const spec = recordAt(node, `${method} ${path}`);
  const where = `${method} ${path}`;
  checkExtensions(spec, KNOWN.operation, where);
  if (typeof spec.operationId !== 'string') refuse(where, 'has no operationId');
  if (typeof spec['x-base'] !== 'string') refuse(where, 'has no x-base');
  const graph = graphFields(spec['x-graph'], where);
  const parameters =
    spec.parameters === undefined ? [] : Array.isArray(spec.parameters) ? spec.parameters : refuse(where, 'parameters is not a list');
  const params = parameters.map((param, index) => parameter(param, `${where} parameters[${index}]`, Object.keys(graph).length > 0));
  // contract.ts places a parameter in the path where the template names it, so the two must agree.
  const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  const pathParams = parameters.filter((param: Json) => param.in === 'path').map((param: Json) => param.name);
  if (inPath.join() !== pathParams.join())
    refuse(where, `the path names {${inPath.join('}, {')}} but its path parameters are ${pathParams.join(', ') || 'none'}`);
  const bearer = spec['x-bearer'];
  if (bearer !== undefined && bearer !== 'refresh') refuse(where, `x-bearer ${String(bearer)} is not refresh`);
  const open = Array.isArray(spec.security) && spec.security.length === 0;
  const responses = recordAt(spec.responses, `${where}.responses`);
  const row = {
    host: spec['x-base'],
    method: method.toUpperCase(),
    path,
    ...(params.length > 0 ? { params: Object.fromEntries(params) } : {}),
    auth: open ? 'none' : bearer === 'refresh' ? 'refresh' : 'access',
    ...(spec['x-active-from'] !== undefined ? { activeFrom: spec['x-active-from'] } : {}),
    response: response(reader, responses, where),
    ...graph,
    ...('403' in responses ? { checksOwner: true } : {}),
    ...(spec['x-stage-refusal'] !== undefined ? { stageRefusal: spec['x-stage-refusal'] } : {}),
  };
  return [spec.operationId as string, row] as const;
}

/** A value as TypeScript source: a shape's named model by its constant, everything else as a literal. */
function literal(value: unknown, indent = ''): string {
  if (isRecord(value) && typeof value.named === 'string' && Object.keys(value).length === 1) return value.named;
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value !== 'object' || value === null) return String(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[${value.map((item) => literal(item, inner)).join(', ')}]`;
  const entries = Object.entries(value).map(
    ([key, item]) => `${inner}${/^[A-Za-z_$][\w$]*$/.test(key) ? key : `'${key}'`}: ${literal(item, inner)},`,
  );
  return `{\n${entries.join('\n')}\n${indent}}`;
}

/** What the YAML's text declares: the models the responses reach, and the operations' rows, by operationId. */
export function declare(source: string) {
  const openapi = recordAt(parse(source), 'the document');
  const reader = new Reader(recordAt(recordAt(openapi.components, 'components').schemas, 'components.schemas'));
  const operations: (readonly [string, unknown])[] = [];
  for (const [path, methods] of Object.entries(recordAt(openapi.paths, 'paths')))
    for (const [method, spec] of Object.entries(recordAt(methods, path))) operations.push(operation(reader, path, method, spec));
  const names = operations.map(([name]) => name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice) refuse(twice, 'two operations have this operationId');
  // A model's constant comes after those it names (its fields' models), so each is defined where it is used.
  const ordered: string[] = [];
  const visit = (name: string) => {
    if (ordered.includes(name)) return;
    modelsIn(reader.models.get(name)!).forEach(visit);
    ordered.push(name);
  };
  for (const name of reader.models.keys()) visit(name);
  return { models: reader.models as ReadonlyMap<string, Shape>, ordered, operations: Object.fromEntries(operations) };
}

/** The generated file for the YAML's text. */
export function generate(source: string): string {
  const { models, ordered, operations } = declare(source);
  return [
    '// Generated by src/tools/upstream-codegen.ts from upstream/openapi.yaml (npm run codegen): do not edit.',
    '// The models every response is read through (src/upstream/models.ts) and the operations table (src/upstream/contract.ts).',
    '',
    ...ordered.map((name) => `const ${name} = ${literal(models.get(name))} as const;\n`),
    `/** The object schemas the responses are made of, by their names in the YAML. */`,
    `export const SHAPES = { ${[...models.keys()].join(', ')} } as const;`,
    '',
    '/** The operations, by operationId, in the order of the YAML. */',
    `export const OPERATIONS = ${literal(operations)} as const;`,
    '',
  ].join('\n');
}

export const YAML_FILE = new URL('../../upstream/openapi.yaml', import.meta.url);
export const GENERATED_FILE = new URL('../upstream/__generated__/contract.ts', import.meta.url);

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    writeFileSync(GENERATED_FILE, generate(readFileSync(YAML_FILE, 'utf8')));
  } catch (error) {
    if (!(error instanceof DeclarationError)) throw error;
    console.error(error.message);
    process.exitCode = 1;
  }
}
