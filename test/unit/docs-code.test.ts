// The docs against the code they describe. The GraphQL they show, against the schema: every
// ```graphql block of the README and of docs/ is valid (a block that spreads the SDK's
// whole-order fragments gets them from the SDK), and the whole-order query of
// docs/querying.md is the SDK's WholeOrder document itself. And docs/observability.md names
// every metric the gateway registers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse, print, validate, visit, type DefinitionNode, type DocumentNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { createGraphSchema } from '../../src/graph/schema.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const blocksOf = (doc: string) =>
  [...readFileSync(join(ROOT, doc), 'utf8').matchAll(/^```graphql\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);

const SDK_FRAGMENTS = WholeOrderDocument.definitions.filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION);
const nameOf = (definition: DefinitionNode) => ('name' in definition && definition.name ? definition.name.value : '');

/** A block as a document, with the SDK's fragments it spreads but does not define. */
function withSdkFragments(block: string): DocumentNode {
  const document = parse(block);
  const defined = new Set(document.definitions.map(nameOf));
  const spread = new Set<string>();
  const add = (name: string) => {
    if (defined.has(name) || spread.has(name)) return;
    const fragment = SDK_FRAGMENTS.find((definition) => nameOf(definition) === name);
    if (!fragment) return;
    spread.add(name);
    visit(fragment, { FragmentSpread: (node) => add(node.name.value) });
  };
  visit(document, { FragmentSpread: (node) => add(node.name.value) });
  return { ...document, definitions: [...document.definitions, ...SDK_FRAGMENTS.filter((definition) => spread.has(nameOf(definition)))] };
}

/** A document's definitions by name, printed: the same operations and fragments, however laid out. */
const printed = (document: DocumentNode) =>
  Object.fromEntries(document.definitions.map((definition) => [nameOf(definition), print(definition)]));

describe('the GraphQL in the docs', () => {
  const schema = createGraphSchema();
  const blocks = DOCS.flatMap((doc) => blocksOf(doc).map((block, index) => [`${doc} #${index + 1}`, block] as const));

  it('is found: the README and the pages show queries, a subscription and fragments', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
  });

  it.each(blocks)('%s is valid against the schema', (_where, block) => {
    expect(validate(schema, withSdkFragments(block)).map((error) => error.message)).toEqual([]);
  });

  it("docs/querying.md's whole-order query is the SDK's WholeOrder document", () => {
    const shown = blocksOf('docs/querying.md').find((block) => block.startsWith('query WholeOrder {'));
    expect(shown).toBeDefined();
    expect(printed(parse(shown!))).toEqual(printed(WholeOrderDocument));
  });
});

describe('docs/observability.md', () => {
  it('names every metric src/observability/metrics.ts registers', () => {
    const source = readFileSync(join(ROOT, 'src/observability/metrics.ts'), 'utf8');
    const metrics = [...new Set([...source.matchAll(/'((?:order_graph|graphql)_[a-z_]+)'/g)].map((match) => match[1]!))];
    expect(metrics).toEqual(expect.arrayContaining(['graphql_yoga_http_duration', 'order_graph_upstream_call_duration_seconds']));
    const page = readFileSync(join(ROOT, 'docs/observability.md'), 'utf8');
    expect(metrics.filter((name) => !new RegExp(`\`${name}[\`{]`).test(page))).toEqual([]);
  });
});
