import { streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { toModelMessages, type TurnAttachment } from './agent.attachments.js';
import { OfflineLanguageModel } from './offline-model.js';

const file = (name: string, mediaType: string, data: Buffer | undefined): TurnAttachment & { reads: Array<number | undefined> } => {
  const reads: Array<number | undefined> = [];
  return {
    name,
    mediaType,
    size: data?.length ?? 100,
    reads,
    read: data
      ? async (maxBytes?: number) => {
          reads.push(maxBytes);
          return maxBytes === undefined ? data : data.subarray(0, maxBytes);
        }
      : undefined,
  };
};
const imagesAndPdf = (t: string) => (t.startsWith('image/') ? ('image' as const) : t === 'application/pdf' ? ('file' as const) : null);

describe('attachments as model message parts', () => {
  it('gives the provider image and file parts it takes, and a text summary of the rest', async () => {
    const png = file('photo.png', 'image/png', Buffer.alloc(12 * 1024, 1));
    const pdf = file('report.pdf', 'application/pdf', Buffer.from('%PDF-1.4 report'));
    const notes = file('notes.txt', 'text/plain; charset=utf-8', Buffer.from('line one\nline two'));
    const zip = file('archive.zip', 'application/zip', Buffer.alloc(50));
    const gone = file('lost.png', 'image/png', undefined);
    const messages = await toModelMessages(
      [
        { role: 'user', content: 'See attached', attachments: [png, pdf, notes, zip, gone] },
        { role: 'assistant', content: 'Thanks' },
      ],
      imagesAndPdf,
    );
    expect(messages[1]).toEqual({ role: 'assistant', content: 'Thanks' });
    const parts = messages[0]!.content as Array<Record<string, unknown>>;
    expect(parts[0]).toEqual({ type: 'text', text: 'See attached' });
    expect(parts[1]).toEqual({ type: 'text', text: '[attachment] photo.png (image/png, 12 KB)' });
    expect(parts[2]).toMatchObject({ type: 'image', mediaType: 'image/png' });
    expect((parts[2]!.image as Uint8Array).length).toBe(12 * 1024);
    expect(parts[4]).toMatchObject({ type: 'file', mediaType: 'application/pdf', filename: 'report.pdf' });
    expect(Buffer.from(parts[4]!.data as Uint8Array).toString()).toBe('%PDF-1.4 report');
    expect(parts[5]!.text).toBe('[attachment] notes.txt (text/plain, 17 bytes): not attached as a file (this model does not take files of this type).\nIts beginning:\nline one\nline two');
    expect(parts[6]!.text).toBe('[attachment] archive.zip (application/zip, 50 bytes): not attached as a file (this model does not take files of this type).');
    expect(parts[7]!.text).toContain('lost.png (image/png, 100 bytes): not attached as a file (the file is no longer available)');
    expect(parts).toHaveLength(8);
    // A summary reads only the beginning of a text file, and nothing of a binary one.
    expect(notes.reads).toEqual([4096]);
    expect(zip.reads).toEqual([]);
  });

  it("sends the newest message's files first within the turn's byte limit", async () => {
    const old = file('old.png', 'image/png', Buffer.alloc(600));
    const recent = file('new.png', 'image/png', Buffer.alloc(600));
    const messages = await toModelMessages(
      [
        { role: 'user', content: 'first', attachments: [old] },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'second', attachments: [recent] },
      ],
      imagesAndPdf,
      1000,
    );
    expect((messages[0]!.content as Array<{ text?: string }>)[1]!.text).toContain("over this turn's attachment size limit");
    expect((messages[2]!.content as Array<{ type: string }>).map((p) => p.type)).toEqual(['text', 'text', 'image']);
    expect(old.reads).toEqual([]);
  });

  it('reaches the offline model through the AI SDK, which acknowledges each file it received', async () => {
    const messages = await toModelMessages(
      [
        {
          role: 'user',
          content: 'What do you make of these?',
          attachments: [file('photo.jpg', 'image/jpeg', Buffer.alloc(12 * 1024, 7)), file('report.pdf', 'application/pdf', Buffer.alloc(2048, 1))],
        },
      ],
      imagesAndPdf,
    );
    const result = streamText({ model: new OfflineLanguageModel(), system: 'Your name is Maya Chen.', messages });
    const text = await result.text;
    expect(text).toContain('You wrote: "What do you make of these?".');
    expect(text).toContain('I received photo.jpg (image/jpeg, 12 KB).');
    expect(text).toContain('I received report.pdf (application/pdf, 2 KB).');
  });
});
