import { runTransform, TransformError, validateTransformExpression } from './transform-runner';

const payload = {
  action: 'opened',
  issue: { number: 42, title: 'Bug', labels: [{ name: 'bug' }, { name: 'p1' }] },
  items: [{ sku: 'a', qty: 2, price: 5 }, { sku: 'b', qty: 1, price: 10 }],
  text: 'hello world',
};

async function failure(expression: string, opts?: { timeoutMs?: number }): Promise<TransformError> {
  try {
    await runTransform(expression, payload, opts);
  } catch (err) {
    if (err instanceof TransformError) return err;
    throw err;
  }
  throw new Error(`expected ${expression} to fail`);
}

describe('runTransform', () => {
  test.each<[string, string, unknown]>([
    ['reshape', '{ "n": issue.number, "labels": issue.labels.name }', { n: 42, labels: ['bug', 'p1'] }],
    ['aggregate', '$sum(items.(qty * price))', 20],
    ['singleton sequence stays an array with []', 'issue.labels[].name', ['bug', 'p1']],
    ['string functions', '$uppercase($substringBefore(text, " "))', 'HELLO'],
    ['regex on RE2', '$replace(text, /o+/, "0")', 'hell0 w0rld'],
    ['match', '$match(text, /w(or)ld/).groups', ['or']],
    ['conditional', 'action = "opened" ? "new" : "other"', 'new'],
    ['null is a JSON value', 'null', null],
    ['whole payload', '$', payload],
  ])('%s', async (_name, expression, expected) => {
    await expect(runTransform(expression, payload)).resolves.toEqual(expected);
  });

  test('results are plain JSON (no jsonata sequence flags)', async () => {
    const result = (await runTransform('items.sku', payload)) as unknown[] & { sequence?: boolean };
    expect(Array.isArray(result)).toBe(true);
    expect(result.sequence).toBeUndefined();
  });

  test.each<[string, string, TransformError['code'], RegExp]>([
    ['no value', 'nothing.here', 'transform_empty', /no value/],
    ['a function', 'function($x) { $x }', 'transform_failed', /function/],
    ['a function nested in an object', '{ "f": $uppercase }', 'transform_failed', /function/],
    ['runtime error', '$number("abc") + issue', 'transform_failed', /failed/],
    ['type error', 'issue.title + 1', 'transform_failed', /failed/],
    ['syntax error', '{ "a": ', 'transform_failed', /Syntax error/],
    ['deep recursion', '($f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; $f(100000))', 'transform_timeout', /recursed/],
    ['sequence too long', '$count([1..5000000])', 'transform_failed', /sequence/],
    ['result too large', '$pad("", 11000000, "x")', 'transform_failed', /larger than/],
  ])('fails: %s', async (_name, expression, code, message) => {
    // A generous time limit, so each case fails for its own reason: on a loaded machine the deep
    // recursion once reached the default 1 s limit before the depth limit (CI, 2026-11-24).
    const err = await failure(expression, { timeoutMs: 60_000 });
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
  });

  test('an endless loop is stopped by the time limit', async () => {
    const started = Date.now();
    const err = await failure('($loop := function($i) { $i < 1e12 ? $loop($i + 1) : $i }; $loop(0))', { timeoutMs: 150 });
    expect(err.code).toBe('transform_timeout');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('the time limit applies to each evaluation of a cached expression', async () => {
    const expression = '($loop := function($i) { $i < $$.n ? $loop($i + 1) : $i }; $loop(0))';
    await expect(runTransform(expression, { n: 10 }, { timeoutMs: 200 })).resolves.toBe(10);
    const slow = runTransform(expression, { n: 1e12 }, { timeoutMs: 200 });
    const fast = runTransform(expression, { n: 5 }, { timeoutMs: 200 });
    await expect(fast).resolves.toBe(5);
    await expect(slow).rejects.toMatchObject({ code: 'transform_timeout' });
  });

  test('regular expressions run on RE2: flags work, backtracking bombs finish at once, look-around is refused', async () => {
    await expect(runTransform('$contains(text, /WORLD/i)', payload)).resolves.toBe(true);
    await expect(runTransform('$split(text, /\\s+/)', payload)).resolves.toEqual(['hello', 'world']);
    const bomb = runTransform('$match($join([1..40].("a")) & "!", /^(a+)+$/)', payload, { timeoutMs: 5000 });
    await expect(bomb).rejects.toMatchObject({ code: 'transform_empty' });
    await expect(runTransform('$match(text, /(?=o)/)', payload)).rejects.toMatchObject({ code: 'transform_failed', message: expect.stringMatching(/Invalid regular expression/) });
  });

  test('the payload is not modified', async () => {
    const input = { a: { b: 1 } };
    await runTransform('$ ~> |a|{"b": 2}|', input);
    expect(input).toEqual({ a: { b: 1 } });
  });
});

describe('validateTransformExpression', () => {
  test.each([
    ['{ "a": b }', null],
    ['$sum(items.price)', null],
  ])('valid: %s', (expression, expected) => {
    expect(validateTransformExpression(expression)).toBe(expected);
  });

  test.each<[string, number | undefined]>([
    ['{ "a": ', 7],
    ['items[', 6],
    ['$x := ', 6],
  ])('syntax error with position: %s', (expression, position) => {
    const problem = validateTransformExpression(expression);
    expect(problem?.message).toMatch(/Syntax error/);
    expect(problem?.position).toBe(position);
  });

  test('empty expression', () => {
    expect(validateTransformExpression('  ')).toEqual({ message: 'The expression is empty.' });
  });
});
