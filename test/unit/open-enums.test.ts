// An SDL enum with UNKNOWN needs no code of its own (src/graph/enums.ts): an answer it does not
// list is UNKNOWN, and UNKNOWN as an argument is refused with a clear error, in both executors
// the gateway runs (graphql-js, graphql-jit: with its own compile options, which write leaves
// without their type's serialize, and with graphql-jit's defaults), for an enum that is both
// argument and answer.
import { execute, parse, validate, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { openEnums } from '../../src/graph/enums.js';
import { JIT_OPTIONS } from '../../src/server/executor.js';

const typeDefs = /* GraphQL */ `
  enum Category {
    INVOICE
    CONTRACT
    UNKNOWN
  }
  "Its values have internal values: the resolvers return those."
  enum Colour {
    RED
    GREEN
    UNKNOWN
  }
  enum Unit {
    MI
    KM
  }
  type Document {
    category: Category
    colour: Colour
    unit: Unit
  }
  type Query {
    documents(category: Category, categories: [Category!]): [Document!]
  }
`;

// What an upstream might send: known, in another case, unlisted; and what each field's filter was.
const RECORDS = [
  { category: 'INVOICE', colour: 'red-ish', unit: 'MI' },
  { category: ' contract ', colour: 'green-ish', unit: 'KM' },
  { category: 'RECEIPT', colour: 'blue-ish', unit: 'MI' },
];
const schema = openEnums(
  createSchema({
    typeDefs,
    resolvers: {
      Colour: { RED: 'red-ish', GREEN: 'green-ish' },
      Query: {
        documents: (_: unknown, { category, categories }: { category?: string; categories?: string[] }) =>
          RECORDS.filter((record) => (!category || record.category === category) && (!categories || categories.includes(record.category))),
      },
    },
  }),
);

type Run = (query: string, variables?: Record<string, unknown>) => Promise<ExecutionResult>;
const graphqlJs: Run = async (query, variables) => {
  const document = parse(query);
  const errors = validate(schema, document);
  return errors.length > 0 ? { errors } : await execute({ schema, document, variableValues: variables });
};
const jit =
  (options?: typeof JIT_OPTIONS): Run =>
  async (query, variables) => {
    const document = parse(query);
    const errors = validate(schema, document);
    if (errors.length > 0) return { errors };
    const compiled = compileQuery(schema, document, undefined, options);
    if (!isCompiledQuery(compiled)) return compiled;
    return await compiled.query(undefined, undefined, variables);
  };

describe.each([
  ['graphql-js', graphqlJs],
  ['graphql-jit as the gateway compiles', jit(JIT_OPTIONS)],
  ['graphql-jit with its defaults', jit()],
])('an enum with UNKNOWN, under %s', (_name, run) => {
  it('answers a value it does not list as UNKNOWN, one it lists in any case and spacing as itself, an internal value as its name', async () => {
    const { data, errors } = await run('{ documents { category colour } }');
    expect(errors).toBeUndefined();
    expect(data?.documents).toEqual([
      { category: 'INVOICE', colour: 'RED' },
      { category: 'CONTRACT', colour: 'GREEN' },
      { category: 'UNKNOWN', colour: 'UNKNOWN' },
    ]);
  });

  it('an enum without UNKNOWN is as strict as before: an unlisted value is the field’s error', async () => {
    const { errors } = await run('{ documents { unit } }');
    expect(errors).toBeUndefined();
    const strict = openEnums(createSchema({ typeDefs, resolvers: { Query: { documents: () => [{ unit: 'furlong' }] } } }));
    const result = await execute({ schema: strict, document: parse('{ documents { unit } }') });
    expect(result.errors?.[0]?.message).toMatch(/Enum "Unit" cannot represent value: "furlong"/);
  });

  it('takes a listed value as an argument, literal or variable', async () => {
    expect((await run('{ documents(category: INVOICE) { category } }')).data).toEqual({ documents: [{ category: 'INVOICE' }] });
    const variable = await run('query ($c: Category) { documents(category: $c) { category } }', { c: 'INVOICE' });
    expect(variable.data).toEqual({ documents: [{ category: 'INVOICE' }] });
  });

  const clear =
    /Category\.UNKNOWN stands for a value the upstream sent that this API does not know yet: it is an answer, never a value to ask with\./;
  it.each([
    ['a literal', '{ documents(category: UNKNOWN) { category } }', undefined],
    ['a variable', 'query ($c: Category) { documents(category: $c) { category } }', { c: 'UNKNOWN' }],
    ['in a list literal', '{ documents(categories: [INVOICE, UNKNOWN]) { category } }', undefined],
    ['in a list variable', 'query ($c: [Category!]) { documents(categories: $c) { category } }', { c: ['INVOICE', 'UNKNOWN'] }],
  ])('refuses UNKNOWN as an argument, %s, with a clear error and no documents', async (_kind, query, variables) => {
    const { data, errors } = await run(query, variables);
    expect(errors?.map((error) => error.message)).toEqual([expect.stringMatching(clear)]);
    expect((data as { documents?: unknown } | null | undefined)?.documents ?? null).toBeNull();
  });
});
