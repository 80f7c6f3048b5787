import fs from 'node:fs';
import path from 'node:path';
import { headingSlug } from '../test/docs/markdown-links';

const REPO = path.resolve(__dirname, '..');
/** The user-facing figures: each bench's headline. */
export const BENCH_DOC = path.join(REPO, 'docs', 'benchmarks.md');
/** Every figure each bench wrote, with how it was measured (for contributors). */
export const BENCH_RESULTS_DOC = path.join(REPO, 'docs', 'internals', 'benchmark-results.md');

/** Writes a bench's figures to its bench/results file and prints them. */
export function saveFigures(resultsFile: string, figures: unknown): void {
  fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
  fs.writeFileSync(resultsFile, JSON.stringify(figures, null, 2) + '\n');
  process.stdout.write(JSON.stringify(figures, null, 2) + '\n');
}

/** Replaces the `<!-- name:start -->…<!-- name:end -->` section of a doc (appends it the first time). */
export function writeMarkedSection(docFile: string, name: string, body: string, title: string): void {
  const section = `<!-- ${name}:start -->\n${body}\n<!-- ${name}:end -->`;
  const doc = fs.existsSync(docFile) ? fs.readFileSync(docFile, 'utf8') : `# ${title}\n`;
  const marked = new RegExp(`<!-- ${name}:start -->[\\s\\S]*<!-- ${name}:end -->`);
  fs.writeFileSync(docFile, marked.test(doc) ? doc.replace(marked, () => section) : `${doc.trimEnd()}\n\n${section}\n`);
}

/**
 * Writes a bench's section twice: all of it to docs/internals/benchmark-results.md, and its headline to
 * docs/benchmarks.md (see `benchSummary`). `heading` titles a section whose body has no `## ` heading of its own.
 */
export function writeBenchSection(name: string, body: string, heading?: string): void {
  writeMarkedSection(BENCH_RESULTS_DOC, name, body, 'Benchmark results');
  writeMarkedSection(BENCH_DOC, name, benchSummary(body, heading), 'Benchmarks');
}

/** A sentence that says under which load a bench ran. */
const LOAD = /load average|load \(1 min\)|1-minute load|\bload \d/i;

/**
 * A section's headline for users: its heading, the sentences that say when and under which load it ran (the rest of
 * the method stays in the internals), its first table, and a link to the whole section in
 * docs/internals/benchmark-results.md.
 */
export function benchSummary(body: string, heading?: string): string {
  const lines = body.split('\n');
  const title = lines.find((line) => line.startsWith('## '))?.slice(3) ?? heading;
  const prose = lines.filter((line) => line.trim() && !/^(#|\||<!--|- )/.test(line));
  const when = prose
    .find((line) => LOAD.test(line))
    ?.split(/(?<=\.)\s+(?=[A-Z0-9`*"])/)
    .filter((sentence) => LOAD.test(sentence))
    .join(' ');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = start < 0 ? -1 : lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  const table = start < 0 ? [] : lines.slice(start, end < 0 ? undefined : end);
  const anchor = title ? `#${headingSlug(title)}` : '';
  return [
    ...(title ? [`## ${title}`, ''] : []),
    ...(when ? [when, ''] : []),
    ...(table.length ? [...table, ''] : []),
    `Every figure and how it was measured: [internals/benchmark-results.md](internals/benchmark-results.md${anchor}).`,
  ].join('\n');
}

/** Runs cleanup steps last-registered first; a failing step is reported and the rest still run. */
export async function runStops(stops: Array<() => Promise<unknown> | unknown>, onError: (err: unknown) => void): Promise<void> {
  for (const stop of stops.reverse()) {
    try {
      await stop();
    } catch (err) {
      onError(err);
    }
  }
}
