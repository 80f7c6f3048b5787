import { escapeHtml, getMember, SafeHtml, TEMPLATE_FUNCTIONS as f, toText, truncateText } from './template-functions';

describe('template functions', () => {
  test.each<[string, unknown, string]>([
    ['upper', f.upper('Relay é'), 'RELAY É'],
    ['upper of missing', f.upper(undefined), ''],
    ['lower', f.lower('ReLaY'), 'relay'],
    ['title', f.title('hello big_world-wide'), 'Hello Big_World-Wide'],
    ['trim', f.trim('  x \n'), 'x'],
    ['truncate default length', f.truncate('a'.repeat(150)), 'a'.repeat(99) + '…'],
    ['truncate short text untouched', f.truncate('abc', 5), 'abc'],
    ['truncate exact', f.truncate('abcdef', 4), 'abc…'],
    ['truncate custom suffix', f.truncate('abcdef', 5, '...'), 'ab...'],
    ['truncate counts UTF-16 units', f.truncate('😀😀😀😀', 3), '😀…'],
    ['truncate never splits a surrogate pair', f.truncate('😀😀😀😀', 4), '😀…'],
    ['truncate bad length falls back', f.truncate('x'.repeat(120), 'abc'), 'x'.repeat(99) + '…'],
    ['default when missing', f.default(undefined, 'n/a') as string, 'n/a'],
    ['default when empty string', f.default('', 'n/a') as string, 'n/a'],
    ['default keeps 0', toText(f.default(0, 'n/a')), '0'],
    ['default keeps false', toText(f.default(false, 'n/a')), 'false'],
    ['json', f.json({ a: [1, 'x'] }), '{"a":[1,"x"]}'],
    ['json indented', f.json({ a: 1 }, 2), '{\n  "a": 1\n}'],
    ['json of missing', f.json(undefined), ''],
    ['join', f.join(['a', 1, true]), 'a, 1, true'],
    ['join with separator', f.join(['a', 'b'], ' | '), 'a | b'],
    ['join of a non-array', f.join('abc'), 'abc'],
    ['date ISO input default format', f.date('2024-03-05T07:08:09Z'), '2024-03-05 07:08 UTC'],
    ['date unix seconds', f.date(1709622489, 'iso'), '2024-03-05T07:08:09.000Z'],
    ['date unix milliseconds', f.date(1709622489000, 'YYYY/MM/DD HH:mm:ss'), '2024/03/05 07:08:09'],
    ['date numeric string', f.date('1709622489', 'date'), '2024-03-05'],
    ['date to unix', f.date('2024-03-05T07:08:09Z', 'unix'), '1709622489'],
    ['date time', f.date('2024-03-05T07:08:09.123Z', 'time'), '07:08:09'],
    ['date invalid passes through', f.date('not a date'), 'not a date'],
    ['markdown_escape', f.markdown_escape('*bold* _x_ `c` [l](u) ~s~ |p| > q # h \\'), '\\*bold\\* \\_x\\_ \\`c\\` \\[l\\]\\(u\\) \\~s\\~ \\|p\\| \\> q \\# h \\\\'],
    ['html_escape', toText(f.html_escape('<a href="x">&</a>')), '&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;'],
    ['mrkdwn_escape', f.mrkdwn_escape('<!channel> & <http://x|y>'), '&lt;!channel&gt; &amp; &lt;http://x|y&gt;'],
    ['urlencode', f.urlencode('a b/ü'), 'a%20b%2F%C3%BC'],
    ['replace', f.replace('a-b-c', '-', '+'), 'a+b+c'],
    ['len of array', String(f.len([1, 2, 3])), '3'],
    ['len of object', String(f.len({ a: 1 })), '1'],
    ['len of string', String(f.len('héllo')), '5'],
    ['index nested', toText(f.index({ a: [{ b: 'x' }] }, 'a', 0, 'b')), 'x'],
    ['first', toText(f.first(['p', 'q'])), 'p'],
    ['last', toText(f.last(['p', 'q'])), 'q'],
  ])('%s', (_name, actual, expected) => {
    expect(actual).toBe(expected);
  });

  test('html_escape gives SafeHtml so html mode does not escape twice', () => {
    expect(f.html_escape('<')).toBeInstanceOf(SafeHtml);
  });

  test.each([undefined, null, 42, 'x', [1], { a: 1 }, true])('functions never throw on %p', (value) => {
    for (const fn of Object.values(f) as Array<(v: unknown, ...a: unknown[]) => unknown>) expect(() => fn(value)).not.toThrow();
  });

  test('getMember reads own properties only', () => {
    expect(getMember({}, 'constructor')).toBeUndefined();
    expect(getMember({}, '__proto__')).toBeUndefined();
    expect(getMember([1, 2], 'length')).toBeUndefined();
    expect(getMember([1, 2], '1')).toBe(2);
    expect(getMember('abc', 'length')).toBeUndefined();
  });

  test('toText and helpers', () => {
    expect(toText(undefined)).toBe('');
    expect(toText(null)).toBe('');
    expect(toText({ a: 1 })).toBe('{"a":1}');
    expect(escapeHtml('<&>"')).toBe('&lt;&amp;&gt;&quot;');
    expect(truncateText('abc', 0)).toBe('…');
  });
});
