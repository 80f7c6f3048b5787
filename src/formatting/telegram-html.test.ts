import { sanitizeTelegramHtml, visibleText } from './telegram-html';

describe('sanitizeTelegramHtml', () => {
  test.each([
    ['allowed tags kept', '<b>b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><ins>n</ins><s>s</s><strike>k</strike><del>d</del>', '<b>b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><ins>n</ins><s>s</s><strike>k</strike><del>d</del>'],
    ['code, pre, blockquote, spoiler', '<pre><code class="language-ts">x</code></pre><blockquote>q</blockquote><tg-spoiler>s</tg-spoiler>', '<pre><code class="language-ts">x</code></pre><blockquote>q</blockquote><tg-spoiler>s</tg-spoiler>'],
    ['span spoiler kept, other span dropped', '<span class="tg-spoiler">a</span><span class="x">b</span>', '<span class="tg-spoiler">a</span>b'],
    ['disallowed tags escaped', '<div>x</div><script>alert(1)</script>', '&lt;div&gt;x&lt;/div&gt;&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['attributes stripped', '<b onclick="x()" class="y">t</b>', '<b>t</b>'],
    ['safe link kept', '<a href="https://example.com/?a=1&amp;b=2" target="_blank">l</a>', '<a href="https://example.com/?a=1&amp;b=2">l</a>'],
    ['javascript link dropped, text kept', '<a href="javascript:alert(1)">l</a>', 'l'],
    ['link without href dropped', '<a>l</a>', 'l'],
    ['tg and mailto links', '<a href="tg://user?id=1">u</a><a href="mailto:a@b.c">m</a>', '<a href="tg://user?id=1">u</a><a href="mailto:a@b.c">m</a>'],
    ['unclosed tags closed', '<b>bold <i>both', '<b>bold <i>both</i></b>'],
    ['misnested tags fixed', '<b><i>x</b>y</i>', '<b><i>x</i></b>y'],
    ['stray closing tag dropped', 'a</b>b', 'ab'],
    ['nothing nests inside code', '<code><b>x</b></code>', '<code>x</code>'],
    ['links do not nest', '<a href="https://a.b">x<a href="https://c.d">y</a></a>', '<a href="https://a.b">xy</a>'],
    ['tag names are case-insensitive', '<B>x</B>', '<b>x</b>'],
    ['br becomes a newline', 'a<br>b<br/>c', 'a\nb\nc'],
    ['lone brackets and ampersands escaped', 'a < b > c & d', 'a &lt; b &gt; c &amp; d'],
    // Entities are decoded as HTML does; the platform shows the same text.
    ['entities decoded, markup characters escaped again', '&lt;&gt;&amp;&quot;&#169;&#x1F600;', '&lt;&gt;&amp;&quot;©😀'],
    ['named entities the platform lacks are sent as their characters', '&nbsp;&copy;', '\u00a0©'],
    ['an ampersand that starts no entity escaped', '&unknown; & &#xZZ;', '&amp;unknown; &amp; &amp;#xZZ;'],
    ['self-closing allowed tag read as HTML does (an open tag), then closed', '<b/>x', '<b>x</b>'],
    ['comments dropped', 'a<!-- x -->b', 'ab'],
    ['relative and protocol-relative links dropped', '<a href="/x">r</a><a href="//evil.example">p</a>', 'rp'],
    ['class allow list per tag', '<code class="language-ts x">c</code><span class="x tg-spoiler">s</span>', '<code class="language-ts">c</code><span class="tg-spoiler">s</span>'],
    ['br inside code is a newline too', '<code>a<br>b</code>', '<code>a\nb</code>'],
  ])('%s', (_name, input, expected) => {
    expect(sanitizeTelegramHtml(input)).toBe(expected);
  });

  test('cuts the visible text at the limit, with an ellipsis, closing open tags', () => {
    expect(sanitizeTelegramHtml('<b>' + 'a'.repeat(20) + '</b>tail', 10)).toBe('<b>aaaaaaaaa…</b>');
    expect(sanitizeTelegramHtml('&lt;'.repeat(20), 5)).toBe('&lt;&lt;&lt;&lt;…');
    const long = sanitizeTelegramHtml('x'.repeat(5000));
    expect(visibleText(long).length).toBe(4096);
    expect(sanitizeTelegramHtml('<i>' + '😀'.repeat(10) + '</i>', 6)).toBe('<i>😀😀…</i>');
  });
});
