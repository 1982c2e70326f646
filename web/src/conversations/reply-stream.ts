import type { MessageDto, SendMessageInput, StreamEvent } from '@contracts';
import { apiResponse } from '../api/client';

interface RawEvent {
  event: string;
  data: string;
}

/** One event block of a text/event-stream: `event:` and `data:` lines; `:` lines are comments. */
function parseBlock(block: string): RawEvent | null {
  let event = 'message';
  const data: string[] = [];
  for (const rawLine of block.split('\n')) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length > 0 ? { event, data: data.join('\n') } : null;
}

/** The events of a server-sent event body, as they arrive. */
async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<RawEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value, { stream: !done }).replace(/\r\n/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const event = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) yield event;
      }
      if (done) break;
    }
    const last = parseBlock(buffer);
    if (last) yield last;
  } finally {
    // Stopping early (an abort, a thrown handler) closes the connection.
    await reader.cancel().catch(() => undefined);
  }
}

export interface ReplyStreamHandlers {
  /** The client's message, stored. */
  onMessage: (message: MessageDto) => void;
  /** More of the reply's text. */
  onDelta: (text: string) => void;
  /** An attempt failed after some text: discard it, another attempt follows. */
  onRetry: () => void;
  /** The stored reply: it replaces the streamed text. */
  onReply: (message: MessageDto) => void;
  /** The reply could not be made (after the message was stored). */
  onError: (error: { code: string; message: string }) => void;
}

/**
 * Sends a message through `POST /conversations/:id/messages/stream` and reads the Specialist's
 * reply as it is written. Resolves on `done`; a refusal before the stream opens throws its
 * ApiError; a stream cut before `done` throws.
 */
export async function streamReply(conversationId: string, body: SendMessageInput, handlers: ReplyStreamHandlers, options: { idempotencyKey: string; signal?: AbortSignal }): Promise<void> {
  const response = await apiResponse(`/conversations/${encodeURIComponent(conversationId)}/messages/stream`, {
    method: 'POST',
    body,
    headers: { Accept: 'text/event-stream', 'Idempotency-Key': options.idempotencyKey },
    signal: options.signal,
  });
  if (!response.body) throw new Error('The server answered without a stream.');
  for await (const raw of readEventStream(response.body)) {
    const event = { event: raw.event, data: JSON.parse(raw.data) as unknown } as StreamEvent;
    switch (event.event) {
      case 'message':
        handlers.onMessage(event.data);
        break;
      case 'delta':
        handlers.onDelta(event.data.text);
        break;
      case 'retry':
        handlers.onRetry();
        break;
      case 'reply':
        handlers.onReply(event.data);
        break;
      case 'error':
        handlers.onError(event.data);
        break;
      case 'done':
        return;
    }
  }
  throw new Error('The connection closed before the reply was complete.');
}
