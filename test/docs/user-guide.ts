/**
 * The rules of the user guide: the Markdown files under docs/ outside docs/internals/, plus the README.
 * User docs are for people doing a task: they name no source file (that is contributor material, in
 * docs/internals/), and the guide stays under its word budget.
 */

/** The user guide's word budget, docs/ outside docs/internals/ (the README not counted). */
export const WORD_BUDGET = 25_000;

/** Whether a repository file is part of the user guide (the README is a user doc too, outside the budget). */
export const isUserDoc = (file: string) => file === 'README.md' || (file.startsWith('docs/') && file.endsWith('.md') && !file.startsWith('docs/internals/'));

/** Whether a file counts against the word budget. */
export const countsAgainstBudget = (file: string) => isUserDoc(file) && file !== 'README.md';

/** Words as `wc -w` counts them: runs of non-space characters. */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Source folders of the service; `bench/results/` holds figures a user may read, not source. */
const SOURCE_DIR = String.raw`(?:src|test|bench(?!/results/)|workflows|activities|migrations|scripts|dashboard/src|packages/[\w.-]+/src)`;

/**
 * A path into the sources: a folder above followed by a nested folder or a file (`src/launcher/`,
 * `test/engines/worker-freeze`, `workflows/delivery.workflow.ts`), or any path to a file with a source
 * extension. A bare word after a slash (`workflows/s`) is not one, nor a file name of the reader's own (`v1.ts`).
 */
const SOURCE_PATH = new RegExp(
  String.raw`(?<![\w./-])(?:${SOURCE_DIR}/(?:[\w.-]+/)+(?:[\w.-]*\w)?|${SOURCE_DIR}/[\w-][\w.-]*\.\w+|[\w.-]+/[\w./-]*\.(?:ts|tsx|mts|cts|mjs|cjs))(?![\w/])`,
  'g',
);

/** The source paths a user doc names, with their 1-based line numbers (HTML comments, which nobody reads, are skipped). */
export function sourcePaths(text: string): Array<{ line: number; path: string }> {
  const visible = text.replace(/<!--[\s\S]*?-->/g, (comment) => comment.replace(/[^\n]/g, ' '));
  const found: Array<{ line: number; path: string }> = [];
  visible.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(SOURCE_PATH)) found.push({ line: i + 1, path: m[0] });
  });
  return found;
}
