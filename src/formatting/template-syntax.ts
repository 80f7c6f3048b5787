import { TemplateSyntaxError } from './errors';
import { countLines, describe, type RawTag, type RawText, scan, type Token, tokenize } from './template-lexer';
import { TEMPLATE_FUNCTIONS } from './template-functions';

/**
 * Translates the template language users write (docs/templates.md) into
 * nunjucks source. Users write the double-brace form (docs/templates.md):
 *
 *   {{ .Meta.EventType }}  {{ .Payload.repo.name | upper }}  {{ upper .Payload.repo.name }}
 *   {{ if eq .Payload.action "opened" }}…{{ else if … }}…{{ else }}…{{ end }}
 *   {{ range .Payload.commits }}{{ .message }}{{ end }}   {{ range $i, $c := .Payload.commits }}…{{ end }}
 *
 * and the nunjucks tags `{% if %}`, `{% elif %}`, `{% else %}`, `{% endif %}`,
 * `{% for x in … %}`, `{% endfor %}`, `{% set x = … %}`.
 *
 * Every token of the output is produced here, never copied from the user:
 * member access goes through `__get` (own properties only), functions are
 * only the library's, and literals are passed as constants. A template can
 * therefore never reach JavaScript prototypes (the classic nunjucks
 * `range.constructor(...)` escape) or nunjucks features we do not offer.
 */

export type OutputMode = 'text' | 'html';

export interface TranslatedTemplate {
  source: string;
  constants: unknown[];
}

interface Block {
  kind: 'if' | 'for';
  line: number;
  dot?: string;
  vars: Set<string>;
}

const ROOTS: Record<string, string> = { Meta: 'Meta', Payload: 'Payload', Body: 'Payload' };
const GO_COMPARISONS: Record<string, string> = { eq: '==', ne: '!=', lt: '<', le: '<=', gt: '>', ge: '>=' };
const LOOP_FIELDS = new Set(['index', 'index0', 'first', 'last', 'length', 'revindex', 'revindex0']);
const LITERALS: Record<string, string> = { true: 'true', false: 'false', nil: 'none', null: 'none', none: 'none' };
const RESERVED = new Set(['if', 'else', 'elif', 'elseif', 'end', 'endif', 'range', 'for', 'endfor', 'set', 'in', 'and', 'or', 'not', 'loop', ...Object.keys(LITERALS)]);
const COMPARISON_OPS = new Set(['==', '!=', '<', '>', '<=', '>=']);

function isFunctionName(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(TEMPLATE_FUNCTIONS, name);
}

/** Parses one tag's tokens into a nunjucks expression. */
class ExpressionParser {
  private pos = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly line: number,
    private readonly scope: Translator,
  ) {}

  fail(message: string): never {
    throw new TemplateSyntaxError(message, this.line);
  }

  peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  done(): boolean {
    return this.pos >= this.tokens.length;
  }

  next(): Token {
    const tok = this.tokens[this.pos++];
    if (!tok) this.fail('unexpected end of expression');
    return tok;
  }

  isOp(v: string, offset = 0): boolean {
    const tok = this.tokens[this.pos + offset];
    return tok?.t === 'op' && tok.v === v;
  }

  isId(name: string, offset = 0): boolean {
    const tok = this.tokens[this.pos + offset];
    return tok?.t === 'id' && tok.name === name && tok.segs.length === 0 && !this.scope.isVariable(name);
  }

  expectOp(v: string): void {
    if (!this.isOp(v)) this.fail(`expected "${v}"`);
    this.pos++;
  }

  /** A whole tag body: one pipeline and nothing after it. */
  full(): string {
    if (this.done()) this.fail('empty expression');
    const expr = this.pipeline();
    if (!this.done()) this.fail(`unexpected ${describe(this.peek()!)} after the expression`);
    return expr;
  }

  pipeline(): string {
    let expr = this.or();
    while (this.isOp('|')) {
      this.pos++;
      const tok = this.next();
      if (tok.t !== 'id' || tok.segs.length > 0 || !isFunctionName(tok.name)) {
        this.fail(`unknown function ${describe(tok)} after "|"`);
      }
      expr = this.apply(tok.name, expr, this.arguments(tok.call));
    }
    return expr;
  }

  /** `fn(a, b)` (no space before the parenthesis) or Go-style space-separated operands `fn a (b) c`. */
  private arguments(parenthesised = false): string[] {
    if (parenthesised) {
      this.expectOp('(');
      const args: string[] = [];
      while (!this.isOp(')')) {
        args.push(this.pipeline());
        if (!this.isOp(')')) this.expectOp(',');
      }
      this.pos++;
      return args;
    }
    const args: string[] = [];
    while (this.startsOperand()) args.push(this.operand());
    return args;
  }

  private apply(name: string, input: string, args: string[]): string {
    return args.length > 0 ? `(${input} | ${name}(${args.join(', ')}))` : `(${input} | ${name})`;
  }

  private or(): string {
    let left = this.and();
    while (this.isId('or')) {
      this.pos++;
      left = `(${left} or ${this.and()})`;
    }
    return left;
  }

  private and(): string {
    let left = this.not();
    while (this.isId('and')) {
      this.pos++;
      left = `(${left} and ${this.not()})`;
    }
    return left;
  }

  private not(): string {
    if (this.isId('not')) {
      this.pos++;
      return `(not ${this.not()})`;
    }
    return this.comparison();
  }

  private comparison(): string {
    const left = this.additive();
    const tok = this.peek();
    if (tok?.t === 'op' && COMPARISON_OPS.has(tok.v)) {
      this.pos++;
      return `(${left} ${tok.v} ${this.additive()})`;
    }
    if (tok?.t === 'op' && tok.v === '=') this.fail('use "==" to compare');
    return left;
  }

  private additive(): string {
    let left = this.multiplicative();
    for (let tok = this.peek(); tok?.t === 'op' && ['+', '-', '~'].includes(tok.v); tok = this.peek()) {
      this.pos++;
      left = `(${left} ${tok.v} ${this.multiplicative()})`;
    }
    return left;
  }

  private multiplicative(): string {
    let left = this.unary();
    for (let tok = this.peek(); tok?.t === 'op' && ['*', '/', '%'].includes(tok.v); tok = this.peek()) {
      this.pos++;
      left = `(${left} ${tok.v} ${this.unary()})`;
    }
    return left;
  }

  private unary(): string {
    if (this.isOp('-')) {
      this.pos++;
      return `(-${this.unary()})`;
    }
    return this.primary();
  }

  /** Prefix forms (`upper .x`, `eq .a "b"`, `and .a .b`) or a plain operand. */
  private primary(): string {
    const tok = this.peek();
    if (tok?.t === 'id' && tok.segs.length === 0 && !this.scope.isVariable(tok.name)) {
      const cmp = GO_COMPARISONS[tok.name];
      if (cmp || tok.name === 'and' || tok.name === 'or') {
        this.pos++;
        const args = this.arguments(tok.call);
        if (cmp) {
          if (args.length !== 2) this.fail(`${tok.name} takes two values`);
          return `(${args[0]} ${cmp} ${args[1]})`;
        }
        if (args.length < 1) this.fail(`${tok.name} needs at least one value`);
        return `(${args.join(` ${tok.name} `)})`;
      }
      if (isFunctionName(tok.name)) {
        this.pos++;
        const args = this.arguments(tok.call);
        if (args.length === 0) this.fail(`${tok.name} needs a value: write "{{ ${tok.name} .Payload.x }}" or "{{ .Payload.x | ${tok.name} }}"`);
        return this.apply(tok.name, args[0], args.slice(1));
      }
    }
    return this.operand();
  }

  private startsOperand(): boolean {
    const tok = this.peek();
    if (!tok) return false;
    if (tok.t === 'op') return tok.v === '(';
    if (tok.t === 'id') return tok.name in LITERALS || tok.name === 'loop' || this.scope.isVariable(tok.name);
    return true;
  }

  private operand(): string {
    const tok = this.next();
    switch (tok.t) {
      case 'str':
        return this.scope.constant(tok.v);
      case 'num':
        return tok.v;
      case 'path':
        return this.scope.path(tok.segs, this.line);
      case 'var':
        if (tok.name === '') return member('__root', tok.segs);
        if (!this.scope.isVariable(tok.name)) this.fail(`unknown variable $${tok.name}`);
        return member(`v_${tok.name}`, tok.segs);
      case 'id':
        if (tok.name in LITERALS && tok.segs.length === 0) return LITERALS[tok.name];
        if (tok.name === 'loop') {
          if (tok.segs.length !== 1 || !LOOP_FIELDS.has(tok.segs[0])) this.fail(`loop has ${[...LOOP_FIELDS].join(', ')}`);
          return `loop.${tok.segs[0]}`;
        }
        if (this.scope.isVariable(tok.name)) return member(`v_${tok.name}`, tok.segs);
        if (isFunctionName(tok.name)) this.fail(`function ${tok.name} used as a value: wrap the call in parentheses`);
        return this.fail(`unknown function or name "${tok.name}" (data paths start with a dot, e.g. .Payload.${tok.name})`);
      case 'op':
        if (tok.v === '(') {
          const inner = this.pipeline();
          this.expectOp(')');
          return `(${inner})`;
        }
        return this.fail(`unexpected "${tok.v}"`);
    }
  }
}

function member(base: string, segs: string[]): string {
  return segs.length === 0 ? base : `(${base} | __get(${segs.map((s) => JSON.stringify(s)).join(', ')}))`;
}

class Translator {
  readonly constants: unknown[] = [];
  private readonly out: string[] = [];
  private readonly blocks: Block[] = [];
  private readonly globals = new Set<string>();
  private loopCount = 0;

  constructor(private readonly mode: OutputMode) {}

  isVariable(name: string): boolean {
    return this.globals.has(name) || this.blocks.some((b) => b.vars.has(name));
  }

  constant(value: unknown): string {
    this.constants.push(value);
    return `__s[${this.constants.length - 1}]`;
  }

  path(segs: string[], line: number): string {
    const dot = [...this.blocks].reverse().find((b) => b.dot)?.dot;
    if (segs.length > 0 && ROOTS[segs[0]]) return member(ROOTS[segs[0]], segs.slice(1));
    if (dot) return member(dot, segs);
    if (segs.length === 0) return '__root';
    throw new TemplateSyntaxError(`unknown field ".${segs.join('.')}": paths start with .Meta, .Payload or .Body`, line);
  }

  translate(src: string): TranslatedTemplate {
    for (const part of scan(src)) {
      if ('text' in part) this.text(part);
      else this.tag(part);
      this.keepLines(part.newlines - countLines(this.out.at(-1) ?? '', 0, (this.out.at(-1) ?? '').length));
    }
    const open = this.blocks.at(-1);
    if (open) throw new TemplateSyntaxError(`the ${open.kind} opened on line ${open.line} is never closed with {{ end }}`, open.line);
    return { source: this.out.join(''), constants: this.constants };
  }

  /** Text inside a loop goes through `__lit` so that it counts towards the render's output budget. */
  private text({ text }: RawText): void {
    if (text === '') return;
    const inLoop = this.blocks.some((b) => b.kind === 'for');
    this.out.push(inLoop ? `{{ ${this.constant(text)} | __lit }}` : /[{}]/.test(text) ? `{{ ${this.constant(text)} }}` : text);
  }

  /** Pads with a comment holding the newlines the output lost, so runtime errors report the user's line. */
  private keepLines(missing: number): void {
    if (missing > 0) this.out.push(`{#${'\n'.repeat(missing)}#}`);
  }

  private tag(tag: RawTag): void {
    const parser = new ExpressionParser(tokenize(tag.body, tag.line), tag.line, this);
    const first = parser.peek();
    const keyword = first?.t === 'id' && first.segs.length === 0 && !this.isVariable(first.name) ? first.name : '';
    if (tag.style === '{%') return this.statement(keyword, parser, tag.line);
    switch (keyword) {
      case 'if':
      case 'range':
      case 'end':
      case 'else':
        return this.statement(keyword, parser, tag.line);
      default:
        this.out.push(`{{ ${parser.full()} | __out_${this.mode} }}`);
    }
  }

  private statement(keyword: string, parser: ExpressionParser, line: number): void {
    parser.next();
    switch (keyword) {
      case 'if':
        this.blocks.push({ kind: 'if', line, vars: new Set() });
        this.out.push(`{% if ${parser.full()} %}`);
        return;
      case 'else':
        if (parser.isId('if')) {
          parser.next();
          return this.elif(parser, line);
        }
        if (!parser.done()) parser.fail('"else" takes nothing after it (did you mean "else if"?)');
        if (!this.blocks.length) parser.fail('"else" without an open if or range');
        this.out.push('{% else %}');
        return;
      case 'elif':
      case 'elseif':
        return this.elif(parser, line);
      case 'range':
      case 'for':
        return this.loop(parser, line);
      case 'end':
      case 'endif':
      case 'endfor':
        return this.end(keyword, parser);
      case 'set': {
        const target = parser.next();
        if ((target.t !== 'id' && target.t !== 'var') || target.segs.length > 0 || RESERVED.has(target.name) || !target.name) {
          parser.fail('set needs a variable name: {% set name = value %}');
        }
        parser.expectOp('=');
        const value = parser.full();
        (this.blocks.at(-1)?.vars ?? this.globals).add(target.name);
        this.out.push(`{% set v_${target.name} = ${value} %}`);
        return;
      }
      default:
        parser.fail(`unsupported tag "${keyword || 'empty'}": use if, else if, else, end, range, or the nunjucks if, elif, else, endif, for, endfor, set`);
    }
  }

  private elif(parser: ExpressionParser, _line: number): void {
    if (this.blocks.at(-1)?.kind !== 'if') parser.fail('"else if" without an open if');
    this.out.push(`{% elif ${parser.full()} %}`);
  }

  private end(keyword: string, parser: ExpressionParser): void {
    if (!parser.done()) parser.fail(`"${keyword}" takes nothing after it`);
    const block = this.blocks.pop();
    if (!block) parser.fail(`"${keyword}" without an open if or range`);
    if ((keyword === 'endif' && block.kind !== 'if') || (keyword === 'endfor' && block.kind !== 'for')) {
      parser.fail(`"${keyword}" closes the ${block.kind} opened on line ${block.line}`);
    }
    this.out.push(block.kind === 'if' ? '{% endif %}' : '{% endfor %}');
  }

  /** `range P`, `range $v := P`, `range $k, $v := P`, `for v in P`, `for k, v in P`. */
  private loop(parser: ExpressionParser, line: number): void {
    const names: string[] = [];
    const hasBinding = parser.isOp(':=', 1) || parser.isOp(',', 1) || parser.isId('in', 1);
    while (hasBinding) {
      const tok = parser.next();
      if ((tok.t !== 'id' && tok.t !== 'var') || tok.segs.length > 0 || !tok.name || RESERVED.has(tok.name)) {
        parser.fail('a loop variable must be a plain name, e.g. range $c := .Payload.commits');
      }
      names.push(tok.name);
      if (parser.isOp(',')) {
        parser.next();
        continue;
      }
      if (parser.isOp(':=') || parser.isId('in')) {
        parser.next();
        break;
      }
      parser.fail('expected ":=" or "in" after the loop variables');
    }
    if (names.length > 2) parser.fail('a loop takes at most two variables (key and value)');
    const iterable = parser.full();
    const dot = names.length ? `v_${names.at(-1)}` : `__it${++this.loopCount}`;
    this.blocks.push({ kind: 'for', line, dot, vars: new Set(names) });
    this.out.push(
      names.length === 2
        ? `{% for v_${names[0]}, ${dot} in (${iterable} | __pairs) %}`
        : `{% for ${dot} in (${iterable} | __iter) %}`,
    );
  }
}

export function translateTemplate(source: string, mode: OutputMode): TranslatedTemplate {
  return new Translator(mode).translate(source);
}
