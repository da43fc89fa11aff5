// The labels of the vehicle's option codes: the file the operator names, read and checked once at start.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  CODE_LABEL_LIMITS,
  CODE_KINDS,
  CodeLabelsError,
  NO_CODE_LABELS,
  parseCodeLabels,
  type CodeLabels,
} from '../../graph/code-labels.js';

/** The embedded simulator's labels for its own codes: what `npm start` without an upstream uses. */
export const SIMULATOR_CODE_LABELS = fileURLToPath(new URL('../../simulator/code-labels.json', import.meta.url));

export const labelVariables = z.object({
  CODE_LABELS_FILE: z
    .string()
    .trim()
    .optional()
    .describe(
      `A JSON file of the words for the vehicle's codes (${CODE_KINDS.join(', ')}), e.g. \`{ "exterior": { "BSB": "Big Sur Blue" } }\`: the graph's \`…Label\` fields. At most ${CODE_LABEL_LIMITS.bytes} bytes and ${CODE_LABEL_LIMITS.entries} labels, each code up to ${CODE_LABEL_LIMITS.codeChars} and each label up to ${CODE_LABEL_LIMITS.labelChars} characters; read once at start, and a file that does not fit stops the start. Unset: the embedded simulator's labels when it serves the upstream, else none (every label null, the code alone).`,
    ),
});

/** The table, or the problem with the file (one line, naming the setting and the file). */
export function codeLabels(file: string | undefined, simulator: boolean): { labels: CodeLabels } | { problem: string } {
  const path = file ?? (simulator ? SIMULATOR_CODE_LABELS : undefined);
  if (path === undefined) return { labels: NO_CODE_LABELS };
  const problem = (what: string) => ({ problem: `CODE_LABELS_FILE ${path} ${what}` });
  try {
    // The size first: a file past the bound is not read into memory at all.
    if (statSync(path).size > CODE_LABEL_LIMITS.bytes) return problem(`is larger than ${CODE_LABEL_LIMITS.bytes} bytes`);
    return { labels: parseCodeLabels(readFileSync(path, 'utf8')) };
  } catch (error) {
    if (error instanceof CodeLabelsError) return problem(error.message);
    return problem(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
