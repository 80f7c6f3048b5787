import nunjucks from 'nunjucks';
import { TemplateRenderError, TemplateSyntaxError } from './errors';
import { LRUCache } from 'lru-cache';
import { escapeHtml, getMember, SafeHtml, TEMPLATE_FUNCTIONS, toText } from './template-functions';
import { type OutputMode, translateTemplate } from './template-syntax';

/**
 * Compiles and renders one template string. Translation (template-syntax.ts)
 * and nunjucks compilation happen once per (mode, source); the result, or the
 * syntax error, is kept in a bounded LRU cache.
 *
 * Output escaping is done by the `__out_<mode>` filter that wraps every
 * `{{ … }}`: `text` prints values as they are (chat_a, chat_b), `html`
 * escapes them (chat_c) unless a function produced escaped HTML already.
 * The template's own literal text is never escaped.
 */

export interface TemplateData {
  Meta: unknown;
  Payload: unknown;
}

interface Compiled {
  template: nunjucks.Template;
  constants: unknown[];
}

/**
 * Limits of one render, so that a template cannot stall a worker with nested
 * loops over a large payload: a loop takes at most MAX_LOOP_ITEMS items and
 * all loops together MAX_ITERATIONS, output stops growing after MAX_OUTPUT
 * characters (all silently: length never fails a delivery), and a render
 * running past RENDER_TIME_LIMIT_MS fails. Rendering is synchronous, so one
 * module-level budget is enough.
 */
export const RENDER_LIMITS = { MAX_LOOP_ITEMS: 1000, MAX_ITERATIONS: 10_000, MAX_OUTPUT: 200_000, RENDER_TIME_LIMIT_MS: 250 } as const;
const budget = { iterations: 0, output: 0, deadline: 0 };

function checkTime(): void {
  if (Date.now() > budget.deadline) throw new Error(`rendering took longer than ${RENDER_LIMITS.RENDER_TIME_LIMIT_MS} ms and was stopped`);
}

function take<T>(items: T[]): T[] {
  checkTime();
  const room = Math.min(RENDER_LIMITS.MAX_LOOP_ITEMS, RENDER_LIMITS.MAX_ITERATIONS - budget.iterations);
  const taken = items.length <= room ? items : items.slice(0, Math.max(0, room));
  budget.iterations += taken.length;
  return taken;
}

function emit(text: string): string {
  checkTime();
  const room = RENDER_LIMITS.MAX_OUTPUT - budget.output;
  budget.output += text.length;
  return text.length <= room ? text : text.slice(0, Math.max(0, room));
}

const env = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: false });
for (const [name, fn] of Object.entries(TEMPLATE_FUNCTIONS)) env.addFilter(name, fn);
env.addFilter('__get', (value: unknown, ...keys: string[]) => {
  checkTime();
  return keys.reduce<unknown>((v, k) => getMember(v, k), value);
});
env.addFilter('__iter', (value: unknown) =>
  take(Array.isArray(value) ? value : value && typeof value === 'object' && !(value instanceof SafeHtml) ? Object.values(value) : []),
);
env.addFilter('__pairs', (value: unknown) =>
  take(Array.isArray(value) ? value.map((v, i) => [i, v]) : value && typeof value === 'object' ? Object.entries(value) : []),
);
env.addFilter('__lit', emit);
env.addFilter('__out_text', (value: unknown) => emit(toText(value)));
env.addFilter('__out_html', (value: unknown) => emit(value instanceof SafeHtml ? value.html : escapeHtml(toText(value))));

const CACHE_LIMIT = 2000;
/** One cache per output mode, keyed by the source string itself (its hash is computed once). */
const caches: Record<OutputMode, LRUCache<string, Compiled | TemplateSyntaxError>> = {
  text: new LRUCache({ max: CACHE_LIMIT }),
  html: new LRUCache({ max: CACHE_LIMIT }),
};

/** Where nunjucks put the line of a runtime or compile error in its message. */
function nunjucksLine(err: unknown): number {
  const match = /\[Line (\d+)/.exec(err instanceof Error ? err.message : String(err));
  return match ? Number(match[1]) : 1;
}

function cleanMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message
    .replace(/^\(unknown path\)\s*(\[Line \d+, Column \d+\])?\s*/, '')
    .replace(/^(Template)?Error: /, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function compile(source: string, mode: OutputMode): Compiled {
  const cache = caches[mode];
  let compiled = cache.get(source);
  if (!compiled) {
    try {
      const translated = translateTemplate(source, mode);
      compiled = { template: new nunjucks.Template(translated.source, env, undefined, true), constants: translated.constants };
    } catch (err) {
      compiled = err instanceof TemplateSyntaxError ? err : new TemplateSyntaxError(cleanMessage(err), nunjucksLine(err));
    }
    cache.set(source, compiled);
  }
  if (compiled instanceof TemplateSyntaxError) throw compiled;
  return compiled;
}

/** Throws TemplateSyntaxError (with the line) when the string does not compile. */
export function checkTemplate(source: string, mode: OutputMode = 'text'): void {
  compile(source, mode);
}

/** Renders one template string; a string without `{` is returned as is. */
export function renderTemplate(source: string, data: TemplateData, mode: OutputMode): string {
  if (!source.includes('{')) return source;
  const { template, constants } = compile(source, mode);
  const context = { Meta: data.Meta, Payload: data.Payload, __root: { Meta: data.Meta, Payload: data.Payload, Body: data.Payload }, __s: constants };
  budget.iterations = 0;
  budget.output = 0;
  budget.deadline = Date.now() + RENDER_LIMITS.RENDER_TIME_LIMIT_MS;
  try {
    return template.render(context);
  } catch (err) {
    throw new TemplateSyntaxError(cleanMessage(err), nunjucksLine(err));
  }
}

/** Renders the template string at `path` of a config; errors name that path. Non-strings print as text. */
export function renderAt(source: unknown, data: TemplateData, mode: OutputMode, path: string): string {
  if (typeof source !== 'string') return typeof source === 'number' ? String(source) : '';
  try {
    return renderTemplate(source, data, mode);
  } catch (err) {
    if (err instanceof TemplateSyntaxError) throw new TemplateRenderError(err.message, path, err.line);
    throw err;
  }
}

/** For the render benchmark: forget every compiled template. */
export function clearTemplateCache(): void {
  caches.text.clear();
  caches.html.clear();
}
