import { TemplateSyntaxError } from './errors';

/**
 * The lexical layer of the template language: splits a template into text
 * and tags (with `{{-` / `-}}` trimming and line numbers), and a tag body into
 * tokens. template-syntax.ts parses the tokens.
 */

export type Token =
  | { t: 'str'; v: string }
  | { t: 'num'; v: string }
  | { t: 'path'; segs: string[] }
  | { t: 'var'; name: string; segs: string[] }
  /** `call`: written as `name(` with no space, the parenthesised call form. */
  | { t: 'id'; name: string; segs: string[]; call?: boolean }
  | { t: 'op'; v: string };

const SEG = '[A-Za-z0-9_]+';
const TOKEN_PATTERNS: Array<[RegExp, (m: RegExpExecArray) => Token]> = [
  [new RegExp(`\\.(?:${SEG}(?:\\.${SEG})*)?`, 'y'), (m) => ({ t: 'path', segs: m[0] === '.' ? [] : m[0].slice(1).split('.') })],
  [new RegExp(`\\$([A-Za-z_][A-Za-z0-9_]*)?((?:\\.${SEG})*)`, 'y'), (m) => ({ t: 'var', name: m[1] ?? '', segs: splitSegs(m[2]) })],
  [
    new RegExp(`([A-Za-z_][A-Za-z0-9_]*)((?:\\.${SEG})*)(?=(\\()?)`, 'y'),
    (m) => ({ t: 'id', name: m[1], segs: splitSegs(m[2]), ...(m[3] ? { call: true } : {}) }),
  ],
  [/\d+(?:\.\d+)?/y, (m) => ({ t: 'num', v: m[0] })],
  [/:=|==|!=|<=|>=|[|(),<>+\-*/%~=]/y, (m) => ({ t: 'op', v: m[0] })],
];

function splitSegs(text: string | undefined): string[] {
  return text ? text.slice(1).split('.') : [];
}

function readString(src: string, start: number, line: number): { value: string; end: number } {
  const quote = src[start];
  let i = start + 1;
  let value = '';
  while (i < src.length && src[i] !== quote) {
    if (src[i] === '\\' && quote !== '`' && i + 1 < src.length) {
      const next = src[i + 1];
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r' };
      if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(i + 2, i + 6))) {
        value += String.fromCharCode(parseInt(src.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      value += simple[next] ?? next;
      i += 2;
      continue;
    }
    value += src[i++];
  }
  if (i >= src.length) throw new TemplateSyntaxError('unterminated string literal', line);
  return { value, end: i + 1 };
}

export function tokenize(body: string, line: number): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < body.length) {
    const ch = body[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '`') {
      const { value, end } = readString(body, i, line);
      tokens.push({ t: 'str', v: value });
      i = end;
      continue;
    }
    let matched = false;
    for (const [pattern, make] of TOKEN_PATTERNS) {
      pattern.lastIndex = i;
      const m = pattern.exec(body);
      if (m && m[0].length > 0) {
        tokens.push(make(m));
        i += m[0].length;
        matched = true;
        break;
      }
    }
    if (!matched) throw new TemplateSyntaxError(`unexpected character "${ch}"`, line);
  }
  return tokens;
}

/** Parses one tag's tokens into a nunjucks expression. */
export function describe(tok: Token): string {
  switch (tok.t) {
    case 'str':
      return `string "${tok.v}"`;
    case 'num':
      return tok.v;
    case 'path':
      return `.${tok.segs.join('.')}`;
    case 'var':
      return `$${[tok.name, ...tok.segs].join('.')}`;
    case 'id':
      return `"${[tok.name, ...tok.segs].join('.')}"`;
    case 'op':
      return `"${tok.v}"`;
  }
}

export interface RawTag {
  style: '{{' | '{%';
  body: string;
  line: number;
  newlines: number;
}

export interface RawText {
  text: string;
  /** Newlines of the source text before trimming: kept so nunjucks' line numbers match the user's. */
  newlines: number;
}

/** Splits a template into text and tags, applying `{{-` / `-}}` whitespace trimming. */
export function scan(src: string): Array<RawText | RawTag> {
  const parts: Array<RawText | RawTag> = [];
  let i = 0;
  let line = 1;
  let trimNext = false;
  const pushText = (text: string) => {
    parts.push({ text: trimNext ? text.trimStart() : text, newlines: countLines(text, 0, text.length) });
    trimNext = false;
  };
  while (i < src.length) {
    const open = src.slice(i).search(/\{[{%#]/);
    if (open < 0) {
      pushText(src.slice(i));
      break;
    }
    const start = i + open;
    pushText(src.slice(i, start));
    line += countLines(src, i, start);
    const style = src.slice(start, start + 2);
    if (style === '{#') {
      const close = src.indexOf('#}', start + 2);
      if (close < 0) throw new TemplateSyntaxError('unterminated comment "{#"', line);
      const newlines = countLines(src, start, close);
      if (newlines) parts.push({ text: '', newlines });
      line += newlines;
      i = close + 2;
      continue;
    }
    const closer = style === '{{' ? '}}' : '%}';
    let j = start + 2;
    while (j < src.length && !src.startsWith(closer, j)) {
      j = src[j] === '"' || src[j] === "'" || src[j] === '`' ? readString(src, j, line).end : j + 1;
    }
    if (j >= src.length) throw new TemplateSyntaxError(`"${style}" is never closed with "${closer}"`, line);
    let body = src.slice(start + 2, j);
    if (body.startsWith('-')) {
      body = body.slice(1);
      const last = parts[parts.length - 1];
      if (last && 'text' in last) last.text = last.text.trimEnd();
    }
    if (body.trimEnd().endsWith('-')) {
      body = body.trimEnd().slice(0, -1);
      trimNext = true;
    }
    const newlines = countLines(src, start, j);
    parts.push({ style: style as RawTag['style'], body, line, newlines });
    line += newlines;
    i = j + 2;
  }
  return parts;
}

export function countLines(src: string, from: number, to: number): number {
  let n = 0;
  for (let k = from; k < to; k++) if (src.charCodeAt(k) === 10) n++;
  return n;
}
