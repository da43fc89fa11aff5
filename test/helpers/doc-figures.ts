// The figures docs/querying.md, docs/limits.md and docs/tracker.md quote from the code, written
// in place: the SDK's whole-order query as querying.md shows it, what a whole order costs, the
// largest page the cost limit lets through, the default call budget, the hostile requests
// request-limits.test sends by family, the tracker's cards and its script limit. They follow the
// per-order fields, the documents and the corpus, so a new upstream operation changes them:
// `npm run docs:figures` writes them into the pages, and test/unit/doc-figures.test.ts fails when a committed page is not what
// this writes. It lives beside the tests, as config-doc.ts does, because src/tools may not
// import the server.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kind, parse, print, type DefinitionNode, type SelectionNode } from 'graphql';
import { SHOWN_ELSEWHERE } from '../../examples/order-tracker/src/query.js';
import { SELECTED_PARTS } from '../../examples/order-tracker/test/schema-order.js';
import { AVAILABLE_FROM } from '../../src/graph/order-fields.js';
import { DEFAULT_UPSTREAM_CALLS } from '../../src/server/config.js';
import { LIMITS } from '../../src/server/limits.js';
import { buildCorpus, WHOLE_ORDER_COST, wholeOrderPageCost } from './hostile-requests.js';
import { TRACKER_SCRIPT_LIMIT } from './tracker-page.js';

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

/** The longest line of the query as shown (the page's code blocks scroll past it). */
const WIDTH = 100;

const oneLine = (node: DefinitionNode | SelectionNode) => print(node).replace(/\s+/g, ' ');

/**
 * A definition as the page shows it: an operation as graphql prints it; a fragment on one line
 * when it fits, else a field with a selection on a line of its own (its selection inline), the
 * plain fields between them packed into lines.
 */
function shown(definition: DefinitionNode): string {
  if (definition.kind === Kind.OPERATION_DEFINITION) return print(definition);
  const whole = oneLine(definition);
  if (whole.length <= WIDTH || !('selectionSet' in definition) || !definition.selectionSet) return whole;
  const lines: string[] = [];
  let packing = false;
  for (const selection of definition.selectionSet.selections) {
    const text = oneLine(selection);
    const plain = selection.kind === Kind.FIELD && !selection.selectionSet;
    if (plain && packing && `  ${lines.at(-1)} ${text}`.length <= WIDTH) lines[lines.length - 1] += ` ${text}`;
    else lines.push(text);
    packing = plain;
  }
  return [whole.slice(0, whole.indexOf('{') + 1), ...lines.map((line) => `  ${line}`), '}'].join('\n');
}

/** src/client/documents/whole-order.graphql as querying.md shows it: compact, each definition's own comment kept (the file's opening comment is the page's prose). */
export function wholeOrderShown(): string {
  const source = read('src/client/documents/whole-order.graphql');
  const comments = new Map([...source.matchAll(/((?:^#.*\n)+)(?:query|fragment) (\w+)/gm)].map((match) => [match[2]!, match[1]!] as const));
  return parse(source)
    .definitions.map((definition, index) => {
      const name = 'name' in definition ? definition.name?.value : undefined;
      const comment = index > 0 && name ? (comments.get(name) ?? '') : '';
      return `${comment}${shown(definition)}`;
    })
    .join('\n\n');
}

/** The most whole orders one page may ask for within the cost limit. */
const largestPage = () => Math.floor((LIMITS.maxCost - wholeOrderPageCost(0)) / WHOLE_ORDER_COST);

/** The Order fields the tracker page makes a card for, as docs/tracker.md lists them: the stage-gated ones, then the other objects and lists its query selects. */
function trackerCardFields(): string {
  const gated = Object.keys(AVAILABLE_FROM);
  const others = SELECTED_PARTS.filter((field) => !gated.includes(field) && !SHOWN_ELSEWHERE.includes(field));
  return [...gated, ...others].map((field) => `\`${field}\``).join(', ');
}

/** request-limits.test.ts's hostile requests, counted by family in the corpus's order (built once: it takes a while). */
let families: Map<string, number> | undefined;
function hostileFamilies(): Map<string, number> {
  if (families) return families;
  families = new Map();
  for (const { family } of buildCorpus({ token: () => 'token' })) families.set(family, (families.get(family) ?? 0) + 1);
  return families;
}
const sum = (counts: Iterable<number>) => [...counts].reduce((total, count) => total + count, 0);

/**
 * A figure: the page, the words before and after it (any line breaks between the words), and
 * what it is. Each is written wherever its words are, and must be somewhere. What the value
 * may look like on the page is a number unless `pattern` says otherwise.
 */
interface Figure {
  page: string;
  before: string;
  after: string;
  value: () => string;
  /** What the figure may look like on the page, when it is not a number. */
  pattern?: string;
}

export const FIGURES: readonly Figure[] = [
  { page: 'docs/querying.md', before: '```graphql\n', after: '\n```', value: wholeOrderShown, pattern: 'query WholeOrder\\b[\\s\\S]*?' },
  { page: 'docs/querying.md', before: 'takes up to ', after: ' whole orders in a page', value: () => String(largestPage()) },
  { page: 'docs/limits.md', before: 'a whole order costs ', after: ',', value: () => String(WHOLE_ORDER_COST) },
  {
    page: 'docs/limits.md',
    before: '(its default page of 16 whole orders) costs ',
    after: ',',
    value: () => (wholeOrderPageCost(16) - 1).toLocaleString('en'),
  },
  { page: 'docs/limits.md', before: 'past 16 whole orders (17 to ', after: ')', value: () => String(largestPage()) },
  { page: 'docs/limits.md', before: 'and ', after: ' or more are refused before any call', value: () => String(largestPage() + 1) },
  { page: 'docs/limits.md', before: '`UPSTREAM_CALLS_PER_REQUEST` (', after: ')', value: () => String(DEFAULT_UPSTREAM_CALLS) },
  { page: 'docs/limits.md', before: "by the request's budget of ", after: ' calls', value: () => String(DEFAULT_UPSTREAM_CALLS) },
  { page: 'docs/tracker.md', before: 'is held under ', after: ' kB gzipped by', value: () => String(TRACKER_SCRIPT_LIMIT / 1000) },
  {
    page: 'docs/tracker.md',
    before: 'today ',
    after: ' (`npm run docs:figures`',
    value: trackerCardFields,
    pattern: '(?:`\\w+`(?:,\\s+)?)+',
  },
  {
    page: 'docs/limits.md',
    before: '**request limits, ',
    after: ' hostile requests**',
    value: () => sum(hostileFamilies().values()).toLocaleString('en'),
  },
  { page: 'docs/limits.md', before: 'hostile requests** in ', after: ' families (', value: () => String(hostileFamilies().size) },
  {
    page: 'docs/limits.md',
    before: ' families (',
    after: '): every one rejected',
    value: () => [...hostileFamilies()].map(([family, count]) => `${family} ${count}`).join(', '),
    pattern: '[^()]*',
  },
];

/** Words as a pattern: its spaces any run of white space, as a page wraps them. */
const words = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+');

/** What one figure's value may look like on the page: its own pattern, else a number. */
const valuePattern = (figure: Figure) => `(?:${figure.pattern ?? '[\\d,]+'})`;

/** A page with its figures written in. Throws when a figure's words are not on it. */
export function withFigures(page: string, text = read(page)): string {
  return FIGURES.filter((figure) => figure.page === page).reduce((written, figure) => {
    const pattern = new RegExp(`(${words(figure.before)})${valuePattern(figure)}(${words(figure.after)})`, 'g');
    if (!pattern.test(written)) throw new Error(`${page} no longer says "${figure.before}…${figure.after}"`);
    return written.replace(pattern, (_match, before: string, after: string) => `${before}${figure.value()}${after}`);
  }, text);
}

export const FIGURE_PAGES = [...new Set(FIGURES.map((figure) => figure.page))];
export const committedPage = (page: string) => read(page);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const page of FIGURE_PAGES) {
    writeFileSync(new URL(page, ROOT), withFigures(page));
    console.log(`wrote ${page}`);
  }
}
