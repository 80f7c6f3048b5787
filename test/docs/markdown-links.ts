import fs from 'node:fs';
import path from 'node:path';

/** A relative link in a Markdown file, and why it does not resolve (null when it does). */
export interface LinkProblem {
  file: string;
  line: number;
  target: string;
  problem: string;
}

/**
 * The anchor GitHub gives a heading: its rendered text lowercased, punctuation but `-` and `_` dropped,
 * spaces turned into `-` (github-slugger); a repeated heading gets `-1`, `-2`, … in order.
 */
export function headingSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image: its text
    .replace(/<[^>]+>/g, '') // inline HTML tags
    .replace(/[`*~]/g, '') // code and emphasis marks (`_` stays: GitHub keeps it)
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The lines of a Markdown text outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fence: string | null = null;
  text.split('\n').forEach((raw, i) => {
    const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(raw);
    if (opener) {
      if (fence === null) fence = opener[1][0].repeat(opener[1].length);
      else if (raw.trim().startsWith(fence)) fence = null;
      return;
    }
    if (fence === null) out.push({ line: i + 1, text: raw });
  });
  return out;
}

/** Every anchor a Markdown file offers: its headings' slugs and explicit `<a id|name="…">` anchors. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const slug = headingSlug(heading[1]);
      const count = seen.get(slug) ?? 0;
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
      seen.set(slug, count + 1);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  }
  return anchors;
}

/** The link targets of a Markdown file outside code (inline links, images and reference definitions). */
export function linksOf(text: string): Array<{ line: number; target: string }> {
  const links: Array<{ line: number; target: string }> = [];
  for (const { line, text: raw } of proseLines(text)) {
    const prose = raw.replace(/(`+)[\s\S]*?\1/g, ''); // inline code spans
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line, target: m[1] });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(raw);
    if (definition) links.push({ line, target: definition[1] });
  }
  return links;
}

/** The relative links of `files` (paths relative to `root`) that point to a missing file or a missing heading. */
export function brokenLinks(root: string, files: string[]): LinkProblem[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(fs.readFileSync(file, 'utf8')));
    return anchorCache.get(file)!;
  };
  const problems: LinkProblem[] = [];
  for (const file of files) {
    const full = path.join(root, file);
    for (const { line, target } of linksOf(fs.readFileSync(full, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:: outside the repository
      const [pathPart, anchor] = splitTarget(target);
      const resolved = pathPart === '' ? full : path.resolve(path.dirname(full), decodeURIComponent(pathPart));
      const report = (problem: string) => problems.push({ file, line, target, problem });
      if (!resolved.startsWith(root + path.sep) && resolved !== root) {
        report('points outside the repository');
        continue;
      }
      if (!fs.existsSync(resolved)) {
        report(`${path.relative(root, resolved)} does not exist`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!resolved.endsWith('.md') || fs.statSync(resolved).isDirectory()) {
        report('an anchor into a file that is not Markdown');
        continue;
      }
      if (!anchorsIn(resolved).has(decodeURIComponent(anchor).toLowerCase())) report(`${path.relative(root, resolved)} has no heading #${anchor}`);
    }
  }
  return problems;
}

function splitTarget(target: string): [string, string | undefined] {
  const hash = target.indexOf('#');
  return hash === -1 ? [target, undefined] : [target.slice(0, hash), target.slice(hash + 1)];
}
