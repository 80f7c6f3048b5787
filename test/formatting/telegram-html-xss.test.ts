import { sanitizeTelegramHtml } from '../../src/formatting/telegram-html';
import { parseChatCHtml } from '../support/fake-platforms';

/**
 * The OWASP XSS filter-evasion cheat sheet, for what chat_c accepts (the formatting tags, `a href`,
 * `code class`, `span class`, `blockquote expandable`): whatever a template writes, the output is
 * HTML the platform parses, every tag is an allowed one with only its allowed attributes, and every
 * link is an absolute http(s), tg or mailto URL.
 */
const VECTORS: Array<[string, string]> = [
  ['javascript: URL', '<a href="javascript:alert(1)">x</a>'],
  ['mixed case scheme', '<a href="JaVaScRiPt:alert(1)">x</a>'],
  ['unquoted href', '<a href=javascript:alert(1)>x</a>'],
  ['grave accents', '<a href=`javascript:alert(1)`>x</a>'],
  ['embedded tab', '<a href="jav\tascript:alert(1)">x</a>'],
  ['embedded encoded tab', '<a href="jav&#x09;ascript:alert(1)">x</a>'],
  ['embedded encoded newline', '<a href="jav&#x0A;ascript:alert(1)">x</a>'],
  ['embedded encoded carriage return', '<a href="jav&#x0D;ascript:alert(1)">x</a>'],
  ['null byte in the scheme', '<a href="java\u0000script:alert(1)">x</a>'],
  ['spaces and meta characters before the scheme', '<a href=" &#14;  javascript:alert(1)">x</a>'],
  ['decimal entities', '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>'],
  ['long decimal entities without semicolons', '<a href="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)">x</a>'],
  ['hex entities without semicolons', '<a href="&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A;alert(1)">x</a>'],
  ['named entity colon', '<a href="javascript&colon;alert(1)">x</a>'],
  ['data: URL', '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>'],
  ['vbscript: URL', '<a href="vbscript:msgbox(1)">x</a>'],
  ['protocol-relative URL', '<a href="//evil.example/x">x</a>'],
  ['relative URL', '<a href="/v1/me">x</a>'],
  ['event handler on a link', '<a href="https://ok.example" onclick="alert(1)" onmouseover=alert(1)>x</a>'],
  ['event handler on a formatting tag', '<b onmouseover=alert(1)>x</b><tg-spoiler onclick="x">y</tg-spoiler>'],
  ['style attribute', '<span class="tg-spoiler" style="background:url(javascript:alert(1))">x</span>'],
  ['attribute breaking out of its quotes', '<a href="https://ok.example" title="&quot;><script>alert(1)</script>">x</a>'],
  ['class carrying an attribute', '<code class="language-ts&quot; onclick=&quot;alert(1)">x</code>'],
  ['img with javascript src', '<IMG SRC="javascript:alert(\'XSS\');">'],
  ['img onerror', '<img src=x onerror=alert(1)>'],
  ['script with src', '<SCRIPT SRC=http://xss.rocks/xss.js></SCRIPT>'],
  ['non-alpha-non-digit after the tag name', '<SCRIPT/XSS SRC="http://xss.rocks/xss.js"></SCRIPT>'],
  ['extraneous open brackets', '<<SCRIPT>alert("XSS");//<</SCRIPT>'],
  ['half-open tag', '<a href="javascript:alert(1)" x'],
  ['malformed img then script', '<IMG """><SCRIPT>alert("XSS")</SCRIPT>">'],
  ['body onload with odd characters', '<BODY onload!#$%&()*~+-_.,:;?@[/|\\]^`=alert("XSS")>'],
  ['svg onload', '<svg/onload=alert(1)>'],
  ['iframe', '<iframe src=javascript:alert(1)></iframe>'],
  ['style import', '<STYLE>@import\'http://xss.rocks/xss.css\';</STYLE>'],
  ['meta refresh', '<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:alert(\'XSS\');">'],
  ['conditional comment', '<!--[if gte IE 4]><SCRIPT>alert(\'XSS\');</SCRIPT><![endif]-->'],
  ['link nested in a link', '<a href="https://ok.example"><a href="javascript:alert(1)">y</a></a>'],
  ['link inside pre', '<pre><a href="javascript:alert(1)">y</a></pre>'],
  ['closing tag with a space', '<b>x</b ><script>alert(1)</script>'],
  ['unicode-escaped scheme', '<a href="\\u006A\\u0061vascript:alert(1)">x</a>'],
];

const ATTRIBUTE = / ([a-z-]+)(?:="([^"]*)")?/g;
const ALLOWED_ATTRIBUTES: Record<string, string[]> = { a: ['href'], code: ['class'], span: ['class'], blockquote: ['expandable'] };

describe('sanitizeTelegramHtml against the OWASP XSS filter-evasion cases', () => {
  it.each(VECTORS)('%s', (_name, input) => {
    const out = sanitizeTelegramHtml(input);
    const parsed = parseChatCHtml(out);
    expect(parsed).not.toHaveProperty('error');
    for (const [, name, attributes] of out.matchAll(/<([a-z-]+)([^>]*)>/g)) {
      for (const [, attribute, value] of attributes.matchAll(ATTRIBUTE)) {
        expect(ALLOWED_ATTRIBUTES[name] ?? []).toContain(attribute);
        if (attribute === 'href') expect(value.replaceAll('&amp;', '&')).toMatch(/^(https?:\/\/[^/]|tg:\/\/|mailto:)/);
        if (attribute === 'class') expect(value).toMatch(/^(language-[\w+#-]+|tg-spoiler)$/);
      }
    }
    // No link survives any of these but the safe one.
    expect(out.match(/<a /g)?.length ?? 0).toBeLessThanOrEqual(input.includes('https://ok.example') ? 1 : 0);
  });
});
