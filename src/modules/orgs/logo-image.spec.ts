import { describe, expect, it } from 'vitest';
import { jpeg, png, webp } from '../../../test/support/images.js';
import { MAX_LOGO_PIXELS, sniffLogo } from './logo-image.js';

describe('sniffLogo: what an uploaded logo is, from its bytes', () => {
  it('knows PNG, JPEG and WebP and reads their pixel size from the header', () => {
    expect(sniffLogo(png(3, 2))).toEqual({ ok: true, type: 'image/png', width: 3, height: 2 });
    expect(sniffLogo(jpeg(640, 480))).toEqual({ ok: true, type: 'image/jpeg', width: 640, height: 480 });
    expect(sniffLogo(webp(300, 120))).toEqual({ ok: true, type: 'image/webp', width: 300, height: 120 });
  });

  it('finds a JPEG frame behind other segments and fill bytes', () => {
    const plain = jpeg(10, 20);
    const withComment = Buffer.concat([plain.subarray(0, 2), Buffer.from([0xff, 0xfe, 0x00, 0x05, 0x61, 0x62, 0x63, 0xff]), plain.subarray(2)]);
    expect(sniffLogo(withComment)).toEqual({ ok: true, type: 'image/jpeg', width: 10, height: 20 });
  });

  it('refuses HTML, text, GIF and an empty file whatever they claim to be', () => {
    for (const data of [Buffer.from('<!doctype html><script>alert(1)</script>'), Buffer.from('just text'), Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'), Buffer.alloc(0)]) {
      expect(sniffLogo(data)).toEqual({ ok: false, message: 'The logo must be a PNG, JPEG or WebP image' });
    }
  });

  it('refuses SVG, with a message that says so', () => {
    const svg = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    expect(sniffLogo(svg)).toEqual({ ok: false, message: expect.stringMatching(/^SVG logos are not accepted/) });
  });

  it('refuses a damaged header: a PNG signature alone, a JPEG with no frame, a WebP with an unknown chunk', () => {
    expect(sniffLogo(png(2, 2).subarray(0, 12))).toMatchObject({ ok: false, message: expect.stringMatching(/damaged/) });
    expect(sniffLogo(Buffer.from([0xff, 0xd8, 0xff, 0xd9]))).toMatchObject({ ok: false, message: expect.stringMatching(/damaged/) });
    const odd = webp(2, 2);
    odd.write('ABCD', 12, 'latin1');
    expect(sniffLogo(odd)).toMatchObject({ ok: false, message: expect.stringMatching(/damaged/) });
  });

  it(`refuses a canvas over ${MAX_LOGO_PIXELS} pixels a side, however small the file, and a zero size`, () => {
    expect(sniffLogo(png(MAX_LOGO_PIXELS, 1))).toMatchObject({ ok: true });
    const huge = png(1, 1);
    huge.writeUInt32BE(60_000, 16);
    expect(sniffLogo(huge)).toMatchObject({ ok: false, message: expect.stringMatching(/at most 4096×4096 pixels \(this one is 60000×1\)/) });
    expect(sniffLogo(jpeg(5000, 10))).toMatchObject({ ok: false });
    expect(sniffLogo(jpeg(0, 10))).toMatchObject({ ok: false, message: expect.stringMatching(/no size/) });
  });
});
