import { describe, expect, it } from 'vitest';
import { resourceBlock, splitResources } from './artifacts.blocks.js';

const A = '0b6f4d1e-2c3a-4b5c-8d9e-0f1a2b3c4d5e';
const B = '1c7f4d1e-2c3a-4b5c-8d9e-0f1a2b3c4d5f';

describe('resource blocks', () => {
  it('writes the stored form and reads it back, the blocks taken out of the text', () => {
    const block = resourceBlock({ artifactId: A, name: 'photo.jpg', mimeType: 'image/jpeg', size: 12_345 });
    expect(block).toBe(`[resource uri="artifact://${A}" name="photo.jpg" mimeType="image/jpeg" size="12345"]`);
    const content = ['Here are the files', block, resourceBlock({ artifactId: B, name: 'report.pdf', mimeType: 'application/pdf', size: 99 })].join('\n');
    expect(splitResources(content)).toEqual({
      text: 'Here are the files',
      resources: [
        { artifactId: A, name: 'photo.jpg', mimeType: 'image/jpeg', size: 12_345 },
        { artifactId: B, name: 'report.pdf', mimeType: 'application/pdf', size: 99 },
      ],
    });
  });

  it('keeps quotes and line breaks of hostile names out of the block', () => {
    const block = resourceBlock({ artifactId: A, name: 'a"b\nc].txt', mimeType: 'text/plain"x', size: 1 });
    expect(splitResources(`hi\n${block}`)).toEqual({ text: 'hi', resources: [{ artifactId: A, name: "a'b c].txt", mimeType: "text/plain'x", size: 1 }] });
  });

  it('leaves a text without blocks as it is, and a block named twice once', () => {
    expect(splitResources('  just text [resource] ')).toEqual({ text: '  just text [resource] ', resources: [] });
    const block = resourceBlock({ artifactId: A, name: 'x.png', mimeType: 'image/png', size: 3 });
    expect(splitResources(`${block}\n${block}`).resources).toHaveLength(1);
    expect(splitResources(block).text).toBe('');
  });
});
