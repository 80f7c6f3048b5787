import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { WORD_BUDGET, countsAgainstBudget, isUserDoc, sourcePaths, wordCount } from './user-guide';

const REPO = path.resolve(__dirname, '..', '..');

/** Every Markdown file git knows, committed or about to be. */
const markdownFiles = () =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: REPO, encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter((file) => fs.existsSync(path.join(REPO, file)));

const read = (file: string) => fs.readFileSync(path.join(REPO, file), 'utf8');

describe('the user guide', () => {
  const files = markdownFiles();
  const userDocs = files.filter(isUserDoc);

  it('names no source path: those belong in docs/internals/', () => {
    expect(userDocs).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/getting-started.md']));
    const found = userDocs.flatMap((file) => sourcePaths(read(file)).map((p) => `${file}:${p.line}: ${p.path}`));
    expect(found).toEqual([]);
  });

  it(`stays under ${WORD_BUDGET.toLocaleString('en')} words (docs/ outside docs/internals/)`, () => {
    const counts = files.filter(countsAgainstBudget).map((file) => ({ file, words: wordCount(read(file)) }));
    const total = counts.reduce((sum, c) => sum + c.words, 0);
    // The count is printed on every run, so a change that grows the guide shows by how much.
    process.stdout.write(`user guide: ${total} words in ${counts.length} files (budget ${WORD_BUDGET})\n`);
    if (total >= WORD_BUDGET) {
      const breakdown = counts.sort((a, b) => b.words - a.words).map((c) => `  ${c.words} ${c.file}`);
      throw new Error(`the user guide has ${total} words, over its budget of ${WORD_BUDGET}: cut repetition and link instead, move contributor material to docs/internals/\n${breakdown.join('\n')}`);
    }
    expect(total).toBeLessThan(WORD_BUDGET);
  });

  it('has an index (docs/README.md) that names every document', () => {
    const index = read('docs/README.md');
    const linked = new Set([...index.matchAll(/\]\(([^)#\s]+)/g)].map((m) => path.join('docs', m[1])));
    const unnamed = files.filter((file) => file.startsWith('docs/') && file !== 'docs/README.md' && !linked.has(file));
    expect(unnamed).toEqual([]);
  });

  it('finds source paths in prose and code, and leaves other paths alone', () => {
    const text = [
      'The launcher is `src/launcher/temporal-cli.ts`; the tests in test/engines/worker-freeze and workflows/delivery.workflow.ts.',
      'Run `node scripts/heap-diff.mjs`, see packages/cli/src/shared/outcomes.ts, dashboard/src/app.tsx and lib/foo.cjs.',
      '<!-- test/e2e/readme.e2e.test.ts plays this section -->',
      'Fine: 85 empty workflows/s, your own v1.ts, bench/results/soak.json, docker-compose.yml, deploy/temporal/server.yaml, `cd packages/cli`, .env.example, docs/internals/testing.md.',
    ].join('\n');
    expect(sourcePaths(text)).toEqual([
      { line: 1, path: 'src/launcher/temporal-cli.ts' },
      { line: 1, path: 'test/engines/worker-freeze' },
      { line: 1, path: 'workflows/delivery.workflow.ts' },
      { line: 2, path: 'scripts/heap-diff.mjs' },
      { line: 2, path: 'packages/cli/src/shared/outcomes.ts' },
      { line: 2, path: 'dashboard/src/app.tsx' },
      { line: 2, path: 'lib/foo.cjs' },
    ]);
    expect(wordCount(' one two\nthree  ')).toBe(3);
    expect(isUserDoc('docs/internals/testing.md')).toBe(false);
    expect(countsAgainstBudget('README.md')).toBe(false);
    expect(countsAgainstBudget('docs/alerts.md')).toBe(true);
  });
});
