// The words for the vehicle's option codes (model, trim, exterior, interior, wheel): what a
// customer reads beside each code. The table comes from a file the operator names
// (CODE_LABELS_FILE); it is read once at start and checked here, so a bad file stops the start
// with what is wrong instead of failing a request later. A code the table does not have keeps
// its label null: the code alone is what the upstream said, and a client can tell it from a
// decoded one.

/** The code fields that have labels, as the file's top-level keys name them. */
export const CODE_KINDS = ['model', 'trim', 'exterior', 'interior', 'wheel'] as const;
export type CodeKind = (typeof CODE_KINDS)[number];

/** Each kind's labels by code. */
export type CodeLabels = Readonly<Record<CodeKind, ReadonlyMap<string, string>>>;

/** No file: every label null. */
export const NO_CODE_LABELS: CodeLabels = Object.fromEntries(CODE_KINDS.map((kind) => [kind, new Map()])) as unknown as CodeLabels;

/** What a labels file may hold at most: the whole table stays in memory for the process's life. */
export const CODE_LABEL_LIMITS = { bytes: 256 * 1024, entries: 5000, codeChars: 64, labelChars: 200 } as const;

/** Thrown by parseCodeLabels: what is wrong with the file, in one sentence. */
export class CodeLabelsError extends Error {}

/**
 * The table from a labels file's text: a JSON object with any of the kinds as keys, each an
 * object from code to label, e.g. `{ "exterior": { "BSB": "Big Sur Blue" } }`. Throws a
 * CodeLabelsError naming the first thing that does not fit (size, shape, an unknown kind, an
 * empty or too long code or label, too many entries).
 */
export function parseCodeLabels(text: string): CodeLabels {
  const { bytes, entries, codeChars, labelChars } = CODE_LABEL_LIMITS;
  if (Buffer.byteLength(text) > bytes) throw new CodeLabelsError(`is larger than ${bytes} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CodeLabelsError('is not JSON');
  }
  if (!isObject(parsed)) throw new CodeLabelsError(`is not a JSON object of ${CODE_KINDS.join(', ')}`);
  const table = Object.fromEntries(CODE_KINDS.map((kind) => [kind, new Map<string, string>()])) as Record<CodeKind, Map<string, string>>;
  let count = 0;
  for (const [kind, labels] of Object.entries(parsed)) {
    if (!(CODE_KINDS as readonly string[]).includes(kind))
      throw new CodeLabelsError(`has "${kind.slice(0, codeChars)}", not one of ${CODE_KINDS.join(', ')}`);
    if (!isObject(labels)) throw new CodeLabelsError(`"${kind}" is not an object from code to label`);
    for (const [code, label] of Object.entries(labels)) {
      if (++count > entries) throw new CodeLabelsError(`has more than ${entries} labels`);
      if (code.trim() === '' || code.length > codeChars)
        throw new CodeLabelsError(`"${kind}" has a code empty or longer than ${codeChars} characters`);
      if (typeof label !== 'string' || label.trim() === '' || label.length > labelChars)
        throw new CodeLabelsError(`"${kind}.${code}" is not a text of 1 to ${labelChars} characters`);
      table[kind as CodeKind].set(code, label.trim());
    }
  }
  return table;
}

/** The label of a code of this kind; null when the code is absent or the table has no label for it. */
export function labelOf(labels: CodeLabels, kind: CodeKind, code: string | null | undefined): string | null {
  return typeof code === 'string' ? (labels[kind].get(code) ?? null) : null;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
