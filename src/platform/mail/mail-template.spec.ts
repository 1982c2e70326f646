import { describe, expect, it } from 'vitest';
import { composeMail, escapeHtml, headerSafe } from './mail-template.js';

const HOSTILE = '<img src=x onerror=alert(1)>';

describe('mail templates', () => {
  it('escapes every piece of text in the HTML part, keeps the plain-text part as written', () => {
    const mail = composeMail({
      to: 'a@example.com',
      subject: `Hello ${HOSTILE}`,
      paragraphs: [`${HOSTILE} & "friends" invited you`, ['Open ', { href: 'https://example.com/x?a=1&b="2"', label: `Join ${HOSTILE}` }]],
    });
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;friends&quot; invited you');
    expect(mail.html).toContain('<a href="https://example.com/x?a=1&amp;b=&quot;2&quot;">Join &lt;img src=x onerror=alert(1)&gt;</a>');
    expect(mail.html).toContain('<title>Hello &lt;img');
    expect(mail.text).toBe(`${HOSTILE} & "friends" invited you\n\nOpen Join ${HOSTILE}: https://example.com/x?a=1&b="2"`);
  });

  it('never links anything but http(s)', () => {
    const mail = composeMail({ to: 'a@example.com', subject: 's', paragraphs: [{ href: 'javascript:alert(1)', label: 'Click' }] });
    expect(mail.html).not.toContain('<a ');
    expect(mail.html).toContain('Click: javascript:alert(1)');
  });

  it('keeps line breaks and control characters out of headers (no header injection)', () => {
    const mail = composeMail({
      to: 'a@example.com\r\nBcc: b@example.com',
      subject: 'Welcome to Evil\r\nBcc: victim@example.com\n\u2028X-Y: z',
      paragraphs: ['Hi'],
      from: 'x@example.com\nBcc: c@example.com',
      headers: { 'In-Reply-To': '<a@b>\r\nBcc: d@example.com' },
    });
    for (const value of [mail.to, mail.subject, mail.from!, mail.headers!['In-Reply-To']!]) expect(value).not.toMatch(/[\r\n\u2028]/);
    expect(mail.subject).toBe('Welcome to Evil Bcc: victim@example.com X-Y: z');
    expect(headerSafe('  a\tb  ')).toBe('a b');
    expect(escapeHtml(`'`)).toBe('&#39;');
  });
});
