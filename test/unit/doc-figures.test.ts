// The figures docs/querying.md and docs/limits.md quote from the code (test/helpers/doc-figures.ts):
// each committed page is what `npm run docs:figures` writes, so a new per-order field or a
// changed document cannot leave a page quoting the old query, cost or budget.
import { describe, expect, it } from 'vitest';
import { committedPage, FIGURE_PAGES, withFigures } from '../helpers/doc-figures.js';

describe('the figures the docs quote', () => {
  it.each(FIGURE_PAGES)('%s is what npm run docs:figures writes (run it and commit the page)', (page) => {
    expect(committedPage(page)).toBe(withFigures(page));
  });

  it('writes each figure where its words are, whatever it said before, and refuses a page that lost the words', () => {
    const stale = 'A page: a whole order costs 1,\nso `UPSTREAM_CALLS_PER_REQUEST` (7) and\n`UPSTREAM_CALLS_PER_REQUEST`\n(8).';
    const words = [
      '(its default page of 16 whole orders) costs 1, past 16 whole orders (17 to 2)',
      'and 3 or more are refused before any call',
      "by the request's budget of 9 calls",
      '**request limits, 1 hostile requests** in 1 families (depth 1): every one rejected',
    ].join(' ');
    const written = withFigures('docs/limits.md', `${stale} ${words}`);
    expect(written).not.toMatch(/costs 1,|\(7\)|\(8\)|to 2\)|and 3 or|of 9 calls/);
    expect(written.match(/`UPSTREAM_CALLS_PER_REQUEST`\s\((\d+)\)/g)).toHaveLength(2);
    expect(() => withFigures('docs/limits.md', words)).toThrow('docs/limits.md no longer says "a whole order costs …,"');
  });

  it('writes the hostile requests by family as the corpus holds them, the count and the list whatever they said', () => {
    const page = withFigures('docs/limits.md').replace(
      /\*\*request limits, [\d,]+ hostile requests\*\* in \d+ families \([^()]*\)/,
      '**request limits, 357 hostile\nrequests** in 2 families (depth\n40, content types 15)',
    );
    const written = withFigures('docs/limits.md', page);
    const [, total, count, list] = written.match(/\*\*request limits, ([\d,]+) hostile\s+requests\*\* in (\d+) families \(([^()]*)\)/)!;
    const families = list!.split(', ').map((entry) => Number(entry.match(/ (\d+)$/)![1]));
    expect(families).toHaveLength(Number(count));
    expect(families.reduce((sum, n) => sum + n, 0)).toBe(Number(total!.replace(/,/g, '')));
    expect(list).toMatch(/^depth \d+, aliases \d+, .* variables \d+$/);
    expect(written.replace('hostile\nrequests', 'hostile requests')).toBe(withFigures('docs/limits.md'));
  });
});
