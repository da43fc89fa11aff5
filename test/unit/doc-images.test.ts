// The images the README and docs/ show are written by a command, not copied in by hand: every
// image a page shows from docs/images/ exists and is one `npm run docs:images` writes, every file
// there is shown somewhere, and each page that shows one says which command writes it.
import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_IMAGES } from '../helpers/doc-images.js';
import { DOC_PAGES } from '../helpers/docs.js';

const ROOT = new URL('../../', import.meta.url);
const written = DOC_IMAGES.map((image) => image.path);

/** The images a page shows (`![…](path)`), from the root. */
const shownOn = (page: string) =>
  [...readFileSync(new URL(page, ROOT), 'utf8').matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) =>
    posix.normalize(posix.join(posix.dirname(page), match[1]!)),
  );

describe('the docs’ images', () => {
  const shown = DOC_PAGES.flatMap((page) => shownOn(page).map((image) => ({ page, image })));

  it('every image a page shows is one npm run docs:images writes, and the page names the command', () => {
    expect(shown.length).toBeGreaterThan(0);
    for (const { page, image } of shown) {
      expect([page, image, written.includes(image)]).toEqual([page, image, true]);
      expect([page, readFileSync(new URL(page, ROOT), 'utf8').includes('npm run docs:images')]).toEqual([page, true]);
    }
  });

  it('every file of docs/images/ is written by the command and shown on a page', () => {
    const files = readdirSync(new URL('docs/images/', ROOT)).map((name) => `docs/images/${name}`);
    expect(files.sort()).toEqual([...written].sort());
    expect([...new Set(shown.map(({ image }) => image))].sort()).toEqual([...written].sort());
  });
});
