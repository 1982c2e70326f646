import type { FilePart, ImagePart, ModelMessage, TextPart } from 'ai';

/**
 * A file that came with a history message, as the turn hands it over: its stored facts, and a
 * reader of its bytes (from the conversation's artifacts storage, at turn time only).
 */
export interface TurnAttachment {
  name: string;
  mediaType: string;
  size: number;
  /** The stored bytes, or only the first `maxBytes`; absent when the file is not available. */
  read?: (maxBytes?: number) => Promise<Buffer>;
}

export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
  attachments?: TurnAttachment[];
}

/** How a model takes a file of a media type: as an image part, as a file part, or not at all (a text summary). */
export type AttachmentSupport = (mediaType: string) => 'image' | 'file' | null;

/**
 * The bytes of files one turn sends the model, all messages together. The newest messages' files
 * come first; a file past the limit is summarised in text instead. Each file is at most 10 MB
 * already (the channels' fetch limit).
 */
export const MAX_TURN_ATTACHMENT_BYTES = 20 * 1024 * 1024;
/** How much of a text or JSON file a summary quotes. */
export const EXCERPT_BYTES = 4 * 1024;
/** The text part that introduces each attachment: the model (and the offline model) learn its name from it. */
export const ATTACHMENT_NOTE = '[attachment] ';

/** `12 KB`, `1.5 MB`, `300 bytes`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
}

/** `text/plain; charset=utf-8` -> `text/plain`. */
export function baseMediaType(mediaType: string): string {
  return mediaType.split(';')[0]!.trim().toLowerCase();
}

function isTextual(mediaType: string): boolean {
  return mediaType.startsWith('text/') || mediaType === 'application/json' || mediaType.endsWith('+json') || mediaType === 'application/xml' || mediaType.endsWith('+xml');
}

type Plan = { kind: 'image' | 'file' } | { kind: 'summary'; why: string; excerpt: boolean };

/**
 * The history as AI SDK model messages: a user message with files becomes its text, then for each
 * file a note naming it and an image or file part (what the provider takes, within the turn's byte
 * limit), or a note summarising it (name, type, size, and the beginning of a text or JSON file).
 */
export async function toModelMessages(history: HistoryMessage[], support: AttachmentSupport, limit = MAX_TURN_ATTACHMENT_BYTES): Promise<ModelMessage[]> {
  // Newest first: the message being answered gets its files before older ones.
  const plans = new Map<TurnAttachment, Plan>();
  let budget = limit;
  for (const message of [...history].reverse()) {
    for (const file of message.attachments ?? []) {
      const mediaType = baseMediaType(file.mediaType);
      const kind = support(mediaType);
      const excerpt = isTextual(mediaType);
      if (!file.read) plans.set(file, { kind: 'summary', why: 'the file is no longer available', excerpt: false });
      else if (!kind) plans.set(file, { kind: 'summary', why: 'this model does not take files of this type', excerpt });
      else if (file.size > budget) plans.set(file, { kind: 'summary', why: "over this turn's attachment size limit", excerpt });
      else {
        budget -= file.size;
        plans.set(file, { kind });
      }
    }
  }
  const out: ModelMessage[] = [];
  for (const message of history) {
    if (message.role === 'assistant' || !message.attachments?.length) {
      out.push({ role: message.role, content: message.content });
      continue;
    }
    const parts: Array<TextPart | ImagePart | FilePart> = [];
    if (message.content) parts.push({ type: 'text', text: message.content });
    for (const file of message.attachments) parts.push(...(await partsOf(file, plans.get(file)!)));
    out.push({ role: 'user', content: parts });
  }
  return out;
}

async function partsOf(file: TurnAttachment, plan: Plan): Promise<Array<TextPart | ImagePart | FilePart>> {
  const mediaType = baseMediaType(file.mediaType);
  const label = `${ATTACHMENT_NOTE}${file.name} (${mediaType}, ${formatSize(file.size)})`;
  if (plan.kind !== 'summary') {
    const data = await file.read!().catch(() => undefined);
    if (data) {
      const part: ImagePart | FilePart =
        plan.kind === 'image' ? { type: 'image', image: new Uint8Array(data), mediaType } : { type: 'file', data: new Uint8Array(data), mediaType, filename: file.name };
      return [{ type: 'text', text: label }, part];
    }
    return [{ type: 'text', text: `${label}: not attached, the file could not be read.` }];
  }
  let text = `${label}: not attached as a file (${plan.why}).`;
  if (plan.excerpt && file.read) {
    const head = await file.read(EXCERPT_BYTES).catch(() => undefined);
    // A cut in the middle of a multi-byte character decodes to U+FFFD: dropped.
    if (head?.length) text += `\nIts beginning${file.size > head.length ? ` (first ${formatSize(head.length)})` : ''}:\n${head.toString('utf8').replace(/\uFFFD+$/, '')}`;
  }
  return [{ type: 'text', text }];
}
