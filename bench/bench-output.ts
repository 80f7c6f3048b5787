import fs from 'node:fs';
import path from 'node:path';

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
