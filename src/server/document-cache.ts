// The documents kept between requests (parsed, validated, and those that earn it compiled by
// graphql-jit), bounded by their estimated heap: a stream of distinct documents evicts the
// oldest instead of growing the heap until the process dies.
import { Kind, visit, type DocumentNode, type ExecutionArgs, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { LRUCache } from 'lru-cache';

// What a kept document costs, measured on this gateway (heap after GC per distinct document,
// bench/NOTES.md "Documents kept"): parsed and validated, about 23 kB plus 310 bytes per AST
// node (the AST with its locations and source, the validation result, the plugins'
// per-document data); compiled by graphql-jit, about 7 kB more plus 410 bytes per field of
// the selection with its fragments expanded (a fragment used ten times is compiled ten
// times). Rounded up, so that the heap they take stays within the budget.
const PARSED = { base: 24_000, perNode: 320 };
const COMPILED = { base: 8_000, perField: 450 };
// A parse error keeps the source it quotes, and a little more.
const ERROR_BASE_BYTES = 2_000;
/** Of the budget, what parse errors may take: a flood of broken documents must not evict the good ones. */
const ERROR_SHARE = 1 / 8;

interface Kept {
  key: string;
  bytes: number;
  runs: number;
  compiled: boolean;
}

export interface DocumentCache {
  /** yoga's `parserAndValidationCache` (its validation cache is keyed by these documents, so it goes with them). */
  parserAndValidationCache: {
    documentCache: { get(key: string): DocumentNode | undefined; set(key: string, document: DocumentNode): void };
    errorCache: { get(key: string): unknown; set(key: string, error: unknown): void };
  };
  /**
   * Whether graphql-jit compiles this document: only what earns it, a registered document or
   * one that runs a second time, so a flood of distinct documents is never compiled. Its
   * estimate grows by the compiled form's.
   */
  worthCompiling(args: ExecutionArgs): boolean;
  /** Documents kept and their estimated bytes (parse errors included). */
  stats(): { documents: number; bytes: number };
}

/** AST nodes of the document: what its parsed form costs. */
function countNodes(document: DocumentNode): number {
  let nodes = 0;
  visit(document, {
    enter() {
      nodes += 1;
    },
  });
  return nodes;
}

/** Fields of the operations with their fragments expanded; each fragment is counted once and its count reused. */
function countExpandedFields(document: DocumentNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const perFragment = new Map<string, number>();
  const count = (set: SelectionSetNode | undefined, path: ReadonlySet<string>): number => {
    let fields = 0;
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) fields += 1 + count(selection.selectionSet, path);
      else if (selection.kind === Kind.INLINE_FRAGMENT) fields += count(selection.selectionSet, path);
      else fields += fragmentFields(selection.name.value, path);
    }
    return fields;
  };
  // Validation refused fragment cycles before anything runs; the path only keeps this finite.
  const fragmentFields = (name: string, path: ReadonlySet<string>): number => {
    if (path.has(name)) return 0;
    let fields = perFragment.get(name);
    if (fields === undefined) {
      fields = count(fragments.get(name)?.selectionSet, new Set([...path, name]));
      perFragment.set(name, fields);
    }
    return fields;
  };
  let total = 0;
  for (const definition of document.definitions)
    if (definition.kind === Kind.OPERATION_DEFINITION) total += count(definition.selectionSet, new Set());
  return total;
}

/**
 * The document cache within `maxBytes` (estimated heap, least recently used out first).
 * `trustedSources` are the registered documents' texts, as clients send them: compiled from
 * their first run.
 */
export function createDocumentCache({
  maxBytes,
  trustedSources,
}: {
  maxBytes: number;
  trustedSources: ReadonlySet<string>;
}): DocumentCache {
  const kept = new WeakMap<DocumentNode, Kept>();
  const documents = new LRUCache<string, DocumentNode>({
    maxSize: Math.floor(maxBytes * (1 - ERROR_SHARE)),
    sizeCalculation: (document) => kept.get(document)!.bytes,
  });
  const errors = new LRUCache<string, object>({
    maxSize: Math.floor(maxBytes * ERROR_SHARE),
    sizeCalculation: (_error, key) => ERROR_BASE_BYTES + key.length,
  });
  return {
    parserAndValidationCache: {
      documentCache: {
        get: (key) => documents.get(key),
        set(key, document) {
          kept.set(document, { key, bytes: PARSED.base + PARSED.perNode * countNodes(document), runs: 0, compiled: false });
          documents.set(key, document);
        },
      },
      errorCache: {
        get: (key) => errors.get(key),
        set: (key, error) => void (typeof error === 'object' && error !== null && errors.set(key, error)),
      },
    },
    worthCompiling({ document }) {
      const entry = kept.get(document);
      // Not parsed through this cache: nothing to account it against, so not compiled.
      if (!entry) return false;
      entry.runs += 1;
      if (!entry.compiled && (entry.runs >= 2 || trustedSources.has(entry.key))) {
        entry.compiled = true;
        entry.bytes += COMPILED.base + COMPILED.perField * countExpandedFields(document);
        // Kept again with its new size (lru-cache keeps the old size when the same value is
        // set again): it may push older documents out. One evicted meanwhile stays out.
        if (documents.peek(entry.key) === document) {
          documents.delete(entry.key);
          documents.set(entry.key, document);
        }
      }
      return entry.compiled;
    },
    stats: () => ({ documents: documents.size, bytes: documents.calculatedSize + errors.calculatedSize }),
  };
}
