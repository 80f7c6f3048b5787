import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { anchorsOf, brokenLinks, headingSlug } from './markdown-links';

const REPO = path.resolve(__dirname, '..', '..');

/** Every Markdown file in the repository (README.md, docs/, the packages' READMEs). */
const markdownFiles = () => execFileSync('git', ['ls-files', '*.md'], { cwd: REPO, encoding: 'utf8' }).trim().split('\n');

describe('Markdown links', () => {
  it('every relative link and anchor in README.md and docs/ resolves inside the repository', () => {
    const files = markdownFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/getting-started.md']));
    const problems = brokenLinks(REPO, files).map((p) => `${p.file}:${p.line} (${p.target}): ${p.problem}`);
    expect(problems).toEqual([]);
  });

  it('names a missing file, a missing heading and a link out of the repository', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-links-'));
    try {
      fs.mkdirSync(path.join(root, 'docs'));
      fs.writeFileSync(path.join(root, 'docs', 'a.md'), '# A\n\n## Your first `webhook`\n\n## Notes\n\n## Notes\n');
      fs.writeFileSync(
        path.join(root, 'README.md'),
        [
          '[ok](docs/a.md) [ok](docs/a.md#your-first-webhook) [second](docs/a.md#notes-1) [web](https://example.com/x.md) [self](#intro)',
          '# Intro',
          '[gone](docs/b.md) [no heading](docs/a.md#setup) [out](../elsewhere.md)',
          '```sh',
          'echo "[not a link](nowhere.md)"',
          '```',
          '`[code](nowhere.md)` [ref]: docs/missing.md',
          '[ref]: docs/missing.md',
        ].join('\n'),
      );
      expect(brokenLinks(root, ['README.md']).map((p) => [p.line, p.target, p.problem])).toEqual([
        [3, 'docs/b.md', 'docs/b.md does not exist'],
        [3, 'docs/a.md#setup', 'docs/a.md has no heading #setup'],
        [3, '../elsewhere.md', 'points outside the repository'],
        [8, 'docs/missing.md', 'docs/missing.md does not exist'],
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('gives headings the anchors GitHub gives them', () => {
    expect(headingSlug('Webhooks on your laptop: `relay listen`')).toBe('webhooks-on-your-laptop-relay-listen');
    expect(headingSlug('The OpenAPI document is generated from the service’s zod schemas')).toBe('the-openapi-document-is-generated-from-the-services-zod-schemas');
    expect(headingSlug('API reference page (`/docs`)')).toBe('api-reference-page-docs');
    expect(headingSlug('[Links](x.md) and **bold** and snake_case')).toBe('links-and-bold-and-snake_case');
    expect([...anchorsOf('# A\n## B\n## B\n<a id="custom"></a>\n```\n# not a heading\n```\n')]).toEqual(['a', 'b', 'b-1', 'custom']);
  });
});
