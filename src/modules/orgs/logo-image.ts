import { LOGO_MAX_BYTES } from '../../contracts/orgs.js';

/**
 * What an uploaded logo is, from its bytes alone (the name and type its sender declared are never
 * trusted): PNG, JPEG or WebP, with the pixel size its header states. SVG is refused: it is a
 * document that can carry scripts and external references, and no sanitizer is part of this
 * service. So is anything else (HTML, GIF, a truncated header).
 */
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

/** The largest logo accepted (spec 2.1 gives an image, no size): 1 MB is ample for a mark shown in a header. */
export const MAX_LOGO_BYTES = LOGO_MAX_BYTES;
/** Per side: a small file can still state a huge canvas that a browser would have to decode. */
export const MAX_LOGO_PIXELS = 4096;

export type LogoSniff = { ok: true; type: LogoType; width: number; height: number } | { ok: false; message: string };

const NOT_AN_IMAGE = 'The logo must be a PNG, JPEG or WebP image';

export function sniffLogo(data: Buffer): LogoSniff {
  const found = pngSize(data) ?? jpegSize(data) ?? webpSize(data);
  if (!found) return { ok: false, message: looksLikeSvg(data) ? 'SVG logos are not accepted: upload a PNG, JPEG or WebP image' : NOT_AN_IMAGE };
  if (found === 'broken') return { ok: false, message: `${NOT_AN_IMAGE}; this file's header is damaged` };
  const { width, height } = found;
  if (width < 1 || height < 1) return { ok: false, message: `${NOT_AN_IMAGE}; this file states no size` };
  if (width > MAX_LOGO_PIXELS || height > MAX_LOGO_PIXELS) return { ok: false, message: `The logo may be at most ${MAX_LOGO_PIXELS}×${MAX_LOGO_PIXELS} pixels (this one is ${width}×${height})` };
  return { ok: true, ...found };
}

type Size = { type: LogoType; width: number; height: number };
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** PNG: the signature, then IHDR first with width and height (big-endian). */
function pngSize(data: Buffer): Size | 'broken' | undefined {
  if (data.length < 8 || !data.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  if (data.length < 24 || data.toString('latin1', 12, 16) !== 'IHDR') return 'broken';
  return { type: 'image/png', width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

/** JPEG: SOI, then segments up to a start-of-frame marker, which carries height and width. */
function jpegSize(data: Buffer): Size | 'broken' | undefined {
  if (data.length < 4 || data[0] !== 0xff || data[1] !== 0xd8 || data[2] !== 0xff) return undefined;
  let at = 2;
  while (at + 4 <= data.length) {
    if (data[at] !== 0xff) return 'broken';
    const marker = data[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return 'broken'; // end of image or scan data before any frame
    const length = data.readUInt16BE(at + 2);
    if (length < 2) return 'broken';
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      if (at + 9 > data.length) return 'broken';
      return { type: 'image/jpeg', height: data.readUInt16BE(at + 5), width: data.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return 'broken';
}

/** WebP: a RIFF container of type WEBP whose first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended). */
function webpSize(data: Buffer): Size | 'broken' | undefined {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'RIFF' || data.toString('latin1', 8, 12) !== 'WEBP') return undefined;
  if (data.length < 30) return 'broken';
  const chunk = data.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') {
    if (data[23] !== 0x9d || data[24] !== 0x01 || data[25] !== 0x2a) return 'broken';
    return { type: 'image/webp', width: data.readUInt16LE(26) & 0x3fff, height: data.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (data[20] !== 0x2f) return 'broken';
    const bits = data.readUInt32LE(21);
    return { type: 'image/webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { type: 'image/webp', width: data.readUIntLE(24, 3) + 1, height: data.readUIntLE(27, 3) + 1 };
  return 'broken';
}

/** Only for a clearer refusal: an XML or SVG document near the start. */
function looksLikeSvg(data: Buffer): boolean {
  return /<svg[\s>]/i.test(data.subarray(0, 4096).toString('utf8'));
}
