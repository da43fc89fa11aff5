// The project's prose, as the docs tests read it: the README, SECURITY.md and every page of docs/.
import { readdirSync } from 'node:fs';

/** Every Markdown page a reader meets, relative to the root. */
export const DOC_PAGES = [
  'README.md',
  'SECURITY.md',
  ...readdirSync(new URL('../../docs/', import.meta.url))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
