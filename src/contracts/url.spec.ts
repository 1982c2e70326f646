import { describe, expect, it } from 'vitest';
import { HTTP_URL_MESSAGE, httpUrl } from './url.js';

describe('httpUrl', () => {
  const schema = httpUrl();

  it('takes http and https addresses', () => {
    for (const url of ['https://acme.example.com', 'http://acme.example.com/logo.png?size=2#x', 'https://127.0.0.1:8443/a', '  https://acme.example.com/  ']) {
      expect(schema.safeParse(url).success, url).toBe(true);
    }
    expect(schema.parse('  https://acme.example.com/  ')).toBe('https://acme.example.com/');
  });

  it('refuses every other scheme, however it is spelled, and what is not a URL', () => {
    for (const url of [
      'javascript:alert(1)',
      'JavaScript:alert(document.cookie)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
      'data:image/svg+xml,<svg onload=alert(1)>',
      'file:///etc/passwd',
      'ftp://files.example.com/logo.png',
      'vbscript:msgbox(1)',
      'blob:https://acme.example.com/1',
      'mailto:a@example.com',
      'acme.example.com',
      '//acme.example.com/logo.png',
      'https://',
      `https://acme.example.com/${'a'.repeat(2048)}`,
    ]) {
      const result = schema.safeParse(url);
      expect(result.success, url).toBe(false);
    }
    expect(schema.safeParse('javascript:alert(1)').error?.issues[0]?.message).toBe(HTTP_URL_MESSAGE);
  });
});
