import jsonata from 'jsonata';
import { RE2 } from 're2-wasm';
import { LRUCache } from 'lru-cache';

/**
 * Runs a named transform's JSONata expression against a payload (docs/internals/decisions.md
 * #transforms): compiled once and cached, time-boxed, and required to produce a JSON
 * value. Any failure is a TransformError; the delivery fails at once (the
 * same input gives the same result, so retrying is pointless).
 *
 * The time box uses jsonata 2.x's own guard rails (`timeout`, `stack`), which
 * check the elapsed time and depth on every evaluation step, per call. This
 * is the library's built-in form of the documented `__evaluate_entry` /
 * `__evaluate_exit` technique, and it is safe with concurrent evaluations of
 * one cached expression. Regular expressions run on RE2 (linear time), so a
 * pathological `$match` cannot stall the process between two steps.
 */

export type TransformErrorCode = 'transform_failed' | 'transform_timeout' | 'transform_empty';

export class TransformError extends Error {
  constructor(
    readonly code: TransformErrorCode,
    message: string,
    /** Character position of the faulty part of the expression, when jsonata knows it. */
    readonly position?: number,
  ) {
    super(message);
    this.name = 'TransformError';
  }
}

export const DEFAULT_TRANSFORM_TIMEOUT_MS = 1000;
/** Nesting depth limit: deep recursion fails fast as a time-out instead of exhausting the stack. */
const MAX_DEPTH = 500;
/** Largest sequence an expression may build. */
const MAX_SEQUENCE = 1_000_000;
/** Largest result, as JSON text: a payload is at most a few MiB, a transform should not blow it up. */
export const MAX_RESULT_CHARS = 10 * 1024 * 1024;

interface JsonataError {
  code?: string;
  message?: string;
  position?: number;
  token?: string;
}

/** jsonata regex engine: RE2 needs the `u` flag and knows no `y`. */
class Re2Engine extends RE2 {
  constructor(pattern: string | RegExp, flags?: string) {
    const source = pattern instanceof RegExp ? pattern.source : pattern;
    const base = (flags ?? (pattern instanceof RegExp ? pattern.flags : '')).replace(/[uy]/g, '');
    super(source, `${base}u`);
  }
}

type Compiled = ReturnType<typeof jsonata>;
/** Per time limit, keyed by the expression string. */
const caches = new Map<number, LRUCache<string, Compiled | TransformError>>();

function asError(err: unknown): JsonataError {
  return err && typeof err === 'object' ? (err as JsonataError) : { message: String(err) };
}

function compile(expression: string, timeoutMs: number): Compiled {
  let cache = caches.get(timeoutMs);
  if (!cache) caches.set(timeoutMs, (cache = new LRUCache({ max: 1000 })));
  let compiled = cache.get(expression);
  if (!compiled) {
    try {
      compiled = jsonata(expression, {
        timeout: timeoutMs,
        stack: MAX_DEPTH,
        sequence: MAX_SEQUENCE,
        RegexEngine: Re2Engine as unknown as RegExpConstructor,
      } as Parameters<typeof jsonata>[1]);
    } catch (err) {
      const e = asError(err);
      compiled = new TransformError('transform_failed', `Syntax error in the transform: ${e.message ?? 'invalid expression'}`, e.position);
    }
    cache.set(expression, compiled);
  }
  if (compiled instanceof TransformError) throw compiled;
  return compiled;
}

function isFunctionValue(value: unknown): boolean {
  if (typeof value === 'function') return true;
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return v._jsonata_lambda === true || v._jsonata_function === true;
}

/** Copies the result into plain JSON (jsonata sequences are arrays with extra flags); functions are refused. */
function toJson(value: unknown): unknown {
  if (value === undefined) return undefined;
  const notJson = () => new TransformError('transform_failed', 'The transform returned a function, not a JSON value.');
  let text: string | undefined;
  try {
    text = JSON.stringify(value, (_key, v: unknown) => {
      if (isFunctionValue(v)) throw notJson();
      return v;
    });
  } catch (err) {
    throw err instanceof TransformError ? err : notJson();
  }
  if (text !== undefined && text.length > MAX_RESULT_CHARS) {
    throw new TransformError('transform_failed', `The transform's result is larger than ${MAX_RESULT_CHARS} characters of JSON.`);
  }
  return text === undefined ? undefined : JSON.parse(text);
}

export async function runTransform(expression: string, payload: unknown, opts: { timeoutMs?: number } = {}): Promise<unknown> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TRANSFORM_TIMEOUT_MS;
  const compiled = compile(expression, timeoutMs);
  let result: unknown;
  try {
    result = await compiled.evaluate(payload);
  } catch (err) {
    const e = asError(err);
    if (e.code === 'D1012') throw new TransformError('transform_timeout', `The transform ran longer than ${timeoutMs} ms and was stopped.`, e.position);
    if (e.code === 'D1011' || err instanceof RangeError) {
      throw new TransformError('transform_timeout', 'The transform recursed too deeply and was stopped (non-terminating recursion?).', e.position);
    }
    throw new TransformError('transform_failed', `The transform failed: ${e.message ?? 'unknown error'}`, e.position);
  }
  const json = toJson(result);
  if (json === undefined) throw new TransformError('transform_empty', 'The transform returned no value for this payload.');
  return json;
}

/** Null when the expression compiles; otherwise jsonata's message and the character position. */
export function validateTransformExpression(expression: string): null | { message: string; position?: number } {
  if (typeof expression !== 'string' || expression.trim() === '') return { message: 'The expression is empty.' };
  try {
    compile(expression, DEFAULT_TRANSFORM_TIMEOUT_MS);
    return null;
  } catch (err) {
    const e = err as TransformError;
    return { message: e.message, ...(e.position !== undefined ? { position: e.position } : {}) };
  }
}

/** For the render benchmark: forget every compiled expression. */
export function clearTransformCache(): void {
  caches.clear();
}
