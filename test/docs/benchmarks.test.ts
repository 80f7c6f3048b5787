import fs from 'node:fs';
import { BENCH_DOC, BENCH_RESULTS_DOC, benchSummary } from '../../bench/bench-output';

/** The `<!-- name:start -->…<!-- name:end -->` sections of a doc, by name. */
function sections(text: string): Map<string, string> {
  return new Map([...text.matchAll(/<!-- ([\w-]+):start -->\n([\s\S]*?)\n<!-- \1:end -->/g)].map((m) => [m[1], m[2]]));
}

describe('benchmark figures', () => {
  it("docs/benchmarks.md holds each bench's headline of its section in docs/internals/benchmark-results.md", () => {
    const headlines = sections(fs.readFileSync(BENCH_DOC, 'utf8'));
    const results = sections(fs.readFileSync(BENCH_RESULTS_DOC, 'utf8'));
    expect([...headlines.keys()].sort()).toEqual([...results.keys()].sort());
    for (const [name, body] of results) {
      // A section without a heading of its own is titled by the bench; the headline carries that title.
      const title = headlines.get(name)?.match(/^## (.*)$/m)?.[1];
      expect({ name, headline: headlines.get(name) }).toEqual({ name, headline: benchSummary(body, title) });
    }
  });

  it('a headline is the heading, the sentences with the load, the first table and a link to every figure', () => {
    const body = [
      '## Thing (`npm run bench:thing`)',
      '',
      'How it was measured, at length.',
      'A thousand sends, i.e. enough. Measured on 2 cores, 1-minute load average 3.2 at the start. Rows are sends.',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '',
      '| second | table |',
      '- a detail',
    ].join('\n');
    expect(benchSummary(body)).toBe(
      [
        '## Thing (`npm run bench:thing`)',
        '',
        'Measured on 2 cores, 1-minute load average 3.2 at the start.',
        '',
        '| a | b |',
        '|---|---|',
        '| 1 | 2 |',
        '',
        'Every figure and how it was measured: [internals/benchmark-results.md](internals/benchmark-results.md#thing-npm-run-benchthing).',
      ].join('\n'),
    );
    expect(benchSummary('Measured on a day (1-minute load 2 at the end).\n\n| x |\n|---|', 'Untitled (`x`)')).toBe(
      '## Untitled (`x`)\n\nMeasured on a day (1-minute load 2 at the end).\n\n| x |\n|---|\n\nEvery figure and how it was measured: [internals/benchmark-results.md](internals/benchmark-results.md#untitled-x).',
    );
  });
});
