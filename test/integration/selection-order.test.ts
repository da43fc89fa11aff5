// Every answer's fields in the order its selection set selects them (GraphQL's CollectFields),
// whichever executor runs it: a document's first run takes the standard executor, its second
// graphql-jit (document-cache.ts, worthCompiling), a registered one jit from the first,
// @defer the standard one; and a registered document sent by its hash too.
import { Kind, parse, print, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type SelectionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WholeOrderDeferredDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { createSimulator, type InProcessSimulator } from '../../src/simulator/server.js';
import { demoToken } from '../helpers/demo.js';
import { inProcessGateway, type TestGateway } from '../helpers/harness.js';

let simulator: InProcessSimulator;
let gateway: TestGateway;
let token: string;

beforeAll(async () => {
  simulator = createSimulator({ latencyMs: 0 });
  gateway = inProcessGateway({ upstream: simulator, trustedDocuments: 'allow' });
  token = await demoToken(simulator, 'two-orders@demo.test');
});
afterAll(async () => {
  await gateway?.close();
  await simulator?.close();
});

/** The fields of a selection set by response key, in CollectFields order, fragments expanded where they stand. */
function collectFields(
  selections: readonly SelectionNode[],
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  into = new Map<string, FieldNode[]>(),
) {
  for (const selection of selections) {
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      into.set(key, [...(into.get(key) ?? []), selection]);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) collectFields(selection.selectionSet.selections, fragments, into);
    else collectFields(fragments.get(selection.name.value)!.selectionSet.selections, fragments, into);
  }
  return into;
}

/**
 * The paths of the objects in `value` whose keys are not in selection order. Type conditions
 * and @defer are not evaluated: of the keys the selection orders, those present in the
 * object must come in that order, and nothing else may be there.
 */
function misordered(
  value: unknown,
  selections: readonly SelectionNode[],
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  path: string,
): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => misordered(item, selections, fragments, `${path}.${index}`));
  if (value === null || typeof value !== 'object') return [];
  const fields = collectFields(selections, fragments);
  const keys = Object.keys(value);
  const found = keys.join() === [...fields.keys()].filter((key) => key in value).join() ? [] : [`${path}: ${keys.join()}`];
  for (const [key, nodes] of fields) {
    const children = nodes.flatMap((node) => node.selectionSet?.selections ?? []);
    if (key in value && children.length > 0)
      found.push(...misordered((value as Record<string, unknown>)[key], children, fragments, `${path}.${key}`));
  }
  return found;
}

function fragmentsOf(document: DocumentNode) {
  return new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
}

/** The selections at a response path (list indexes skipped), for an incremental payload. */
function selectionsAt(document: DocumentNode, path: ReadonlyArray<string | number>): readonly SelectionNode[] {
  const fragments = fragmentsOf(document);
  let selections = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION)!.selectionSet.selections;
  for (const key of path) {
    if (typeof key === 'number') continue;
    selections = collectFields(selections, fragments)
      .get(key)!
      .flatMap((node) => node.selectionSet?.selections ?? []);
  }
  return selections;
}

/** Misordered objects of an answer (or of each payload of an incremental one) to `document`. */
function misorderedAnswer(
  document: DocumentNode,
  payloads: Array<{ data?: unknown; incremental?: Array<{ data?: unknown; path: Array<string | number> }> }>,
): string[] {
  const fragments = fragmentsOf(document);
  return payloads.flatMap((payload, index) => [
    ...(payload.data === undefined ? [] : misordered(payload.data, selectionsAt(document, []), fragments, `payload ${index}`)),
    ...(payload.incremental ?? []).flatMap((item) =>
      misordered(item.data, selectionsAt(document, item.path), fragments, `payload ${index} at ${item.path.join('.')}`),
    ),
  ]);
}

/** POSTs a body; resolves to the payloads (one, or each part of a multipart answer). */
async function send(body: object, accept = 'application/graphql-response+json') {
  const response = await gateway.fetch(gateway.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  expect(response.status, text.slice(0, 300)).toBe(200);
  const boundary = /boundary="?([^";]+)"?/.exec(response.headers.get('content-type') ?? '')?.[1];
  if (!boundary) return { text, payloads: [JSON.parse(text)] };
  const parts = text.split(`--${boundary}`).map((part) => part.slice(part.indexOf('\r\n\r\n') + 4).trim());
  return { text, payloads: parts.filter((part) => part.startsWith('{')).map((part) => JSON.parse(part)) };
}

const ISSUE = '{ me { ...C orders { id } } } fragment C on Customer { id email }';
// Fragments and inline fragments between plain fields, aliases, nested fragments, a field
// selected twice (its first place counts), type conditions on the concrete type.
const MIXED = `
  query Mixed {
    me {
      ... on Customer { mail: email }
      ...Names
      orders {
        ...Record
        number: reservationId
        ... { status }
        estimate { ...Totals isEstimate }
        ... on Order { id createdAt }
        vehicle { model ... on Vehicle { vin } }
      }
      id
      __typename
    }
  }
  fragment Names on Customer { lastName firstName address { ...Place } }
  fragment Place on Address { postalCode ...{ city } line1 }
  fragment Record on Order { updatedAt product { trim model msrp { currencyCode amount } } createdAt }
  fragment Totals on Estimate { total { currencyCode amount } feesTotal { amount } }
`;
const DEFERRED = `
  query Deferred {
    me {
      ... @defer(label: "names") { lastName firstName }
      orders {
        ... @defer(label: "estimate") { estimate { ...Totals calculatedAt } }
        status
        ...Record
        id
      }
      email
    }
  }
  fragment Record on Order { updatedAt product { trim model } createdAt }
  fragment Totals on Estimate { total { currencyCode amount } isEstimate }
`;

describe('selection order', () => {
  it('checks what it should: a misordered answer is caught', () => {
    const issue = parse(ISSUE);
    expect(misordered({ me: { orders: [], id: '1', email: 'e' } }, selectionsAt(issue, []), fragmentsOf(issue), 'data')).toEqual([
      'data.me: orders,id,email',
    ]);
    expect(
      misordered({ me: { id: '1', email: 'e', orders: [{ id: 'o', status: 'x' }] } }, selectionsAt(issue, []), fragmentsOf(issue), 'data'),
    ).toEqual(['data.me.orders.0: id,status']);
  });

  it.each([
    ['the issue’s document', ISSUE],
    ['fragments, inline fragments, aliases and nested fragments', MIXED],
  ])('%s: twice (standard executor, then graphql-jit), the same answer in selection order', async (_, query) => {
    const first = await send({ query });
    const second = await send({ query });
    expect(first.payloads[0].errors).toBeUndefined();
    expect(first.payloads[0].data.me.orders.length).toBe(2);
    expect(misorderedAnswer(parse(query), first.payloads)).toEqual([]);
    expect(second.text).toBe(first.text);
  });

  it('WholeOrder as the SDK sends it and by its hash alone: in the order the document is written', async () => {
    const hash = (WholeOrderDocument as { __meta__?: { hash?: string } }).__meta__!.hash!;
    const byText = await send({ query: print(WholeOrderDocument) });
    const byHash = await send({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    expect(Object.keys(byText.payloads[0].data.me).slice(0, 2)).toEqual(['id', 'email']);
    expect(Object.keys(byText.payloads[0].data.me).at(-1)).toBe('orders');
    expect(misorderedAnswer(WholeOrderDocument, byText.payloads)).toEqual([]);
    expect(byHash.text).toBe(byText.text);
  });

  it.each([
    ['a @defer document of its own', parse(DEFERRED), false],
    ['WholeOrderDeferred', WholeOrderDeferredDocument, false],
    ['WholeOrderDeferred by its hash', WholeOrderDeferredDocument, true],
  ])('%s: the first payload and each deferred one in selection order', async (_, document, byHash) => {
    const hash = (document as { __meta__?: { hash?: string } }).__meta__?.hash;
    const body = byHash ? { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } } : { query: print(document) };
    const { payloads } = await send(body, 'multipart/mixed');
    expect(payloads.length).toBeGreaterThan(2);
    expect(payloads.some((payload) => payload.incremental?.length > 0)).toBe(true);
    expect(misorderedAnswer(document, payloads)).toEqual([]);
  });
});
