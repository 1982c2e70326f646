import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3Message,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { LRUCache } from 'lru-cache';
import { ATTACHMENT_NOTE, formatSize } from './agent.attachments.js';

export const OFFLINE_MODEL_ID = 'offline-specialist-1';
/** The bespoke tool the offline model calls when a client asks for the time. */
export const OFFLINE_TIME_TOOL = 'get_org_local_time';

const TIME_QUESTION = /\b(time|clock|hour|date|today)\b/i;
const WORDS_PER_DELTA = 5;
const QUOTE_MAX = 280;

type Tokenizer = { countTokens: (text: string) => number };
let tokenizer: Promise<Tokenizer> | undefined;
/**
 * The o200k encoding: about 0.2 s of CPU to load on a quiet machine, several times that under
 * load. Loaded while the app starts (`warm`), before the instance reports ready, so that no
 * request of a new instance waits behind it.
 *
 * Counts are remembered by their text (`counted`): a thread's history and its org's system prompt
 * and tools come back on every turn, and an answer is a piece of the next turn's history, so a
 * turn encodes only its new message and its answer.
 */
function loadTokenizer(): Promise<Tokenizer> {
  tokenizer ??= import('gpt-tokenizer/encoding/o200k_base').then((m) => ({
    countTokens: (text: string) => {
      let count = counted.get(text);
      if (count === undefined) {
        count = m.countTokens(text);
        counted.set(text, count);
      }
      return count;
    },
  }));
  return tokenizer;
}

/** The token counts already taken, by text: bounded by entries and by characters; a text longer than a tenth of the bound is counted each time. */
const counted = new LRUCache<string, number>({ max: 20_000, maxSize: 4_000_000, maxEntrySize: 400_000, sizeCalculation: (_count, text) => Math.max(text.length, 1) });

interface OfflineAnswer {
  content: LanguageModelV3Content[];
  finishReason: LanguageModelV3FinishReason;
  usage: LanguageModelV3Usage;
}

/**
 * The default model when no live provider is configured: the AI SDK's language-model interface
 * (v3), in-process, no network and no randomness. The same prompt always gives the same answer.
 * It greets as the Specialist named in the system prompt, says plainly that it is an offline
 * model, acknowledges the client's last message, and calls the org-time tool when asked for the
 * time and the tool is offered. Token counts are real: the o200k encoding of the prompt as sent
 * (each message part and tool definition on its own) and of the output.
 */
export class OfflineLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;
  readonly provider = 'offline';
  readonly supportedUrls: Record<string, RegExp[]> = {};

  constructor(readonly modelId: string = OFFLINE_MODEL_ID) {}

  /** Loads what the first answer would otherwise load (the tokenizer). */
  async warm(): Promise<void> {
    await loadTokenizer();
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const answer = await this.answer(options);
    return { ...answer, warnings: [] };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const answer = await this.answer(options);
    const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
    for (const [i, item] of answer.content.entries()) {
      if (item.type === 'text') {
        const id = `text-${i}`;
        parts.push({ type: 'text-start', id });
        for (const delta of splitDeltas(item.text)) parts.push({ type: 'text-delta', id, delta });
        parts.push({ type: 'text-end', id });
      } else {
        parts.push(item as LanguageModelV3StreamPart);
      }
    }
    parts.push({ type: 'finish', usage: answer.usage, finishReason: answer.finishReason });
    const signal = options.abortSignal;
    let next = 0;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      pull(controller) {
        if (signal?.aborted) {
          controller.error(signal.reason ?? new Error('aborted'));
          return;
        }
        if (next < parts.length) controller.enqueue(parts[next++]!);
        else controller.close();
      },
    });
    return { stream };
  }

  private async answer(options: LanguageModelV3CallOptions): Promise<OfflineAnswer> {
    options.abortSignal?.throwIfAborted();
    const { countTokens } = await loadTokenizer();
    // Each piece on its own, as a chat model's template frames each message between special tokens (no token spans two pieces).
    const inputTokens = promptPieces(options).reduce((n, piece) => n + countTokens(piece), 0);
    const prompt = options.prompt;
    const system = prompt.flatMap((m) => (m.role === 'system' ? [m.content] : [])).join('\n');
    const lastUser = prompt.findLastIndex((m) => m.role === 'user');
    const question = lastUser >= 0 ? textOf(prompt[lastUser]!) : '';
    const received = lastUser >= 0 ? filesOf(prompt[lastUser]!) : [];
    const results = prompt.slice(lastUser + 1).flatMap((m) => (m.role === 'tool' ? m.content.flatMap((p) => (p.type === 'tool-result' ? [p] : [])) : []));
    const offersTimeTool = (options.tools ?? []).some((t) => t.type === 'function' && t.name === OFFLINE_TIME_TOOL);

    if (results.length === 0 && offersTimeTool && TIME_QUESTION.test(question)) {
      const input = '{}';
      return {
        content: [{ type: 'tool-call', toolCallId: `offline-call-${prompt.length}`, toolName: OFFLINE_TIME_TOOL, input }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: usage(inputTokens, countTokens(OFFLINE_TIME_TOOL + input)),
      };
    }

    const text = replyText({
      name: /Your name is ([^.\n]+)\./.exec(system)?.[1]?.trim(),
      question,
      received,
      briefs: (system.match(/^### /gm) ?? []).length,
      results: results.map((r) => `${r.toolName}: ${outputText(r.output)}`),
    });
    return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(inputTokens, countTokens(text)) };
  }
}

function replyText(a: { name?: string; question: string; received: string[]; briefs: number; results: string[] }): string {
  const lines = [
    `Hello, this is ${a.name ?? 'your Specialist'}.`,
    'I am answering from the offline model: a live language model is not configured on this service, so I can acknowledge your message but not work on it yet.',
  ];
  const quote = a.question.replace(/\s+/g, ' ').trim();
  if (quote) lines.push(`You wrote: "${quote.length > QUOTE_MAX ? `${quote.slice(0, QUOTE_MAX - 1)}…` : quote}".`);
  for (const file of a.received) lines.push(`I received ${file}.`);
  for (const r of a.results) lines.push(`I looked it up. ${r}`);
  if (a.briefs > 0) lines.push(`I have ${a.briefs} client brief${a.briefs === 1 ? '' : 's'} on file for your organization.`);
  lines.push('Once a live model is configured, I will answer in full.');
  return lines.join(' ');
}

/** A few words per delta, whitespace kept, so the deltas join back into the text exactly. */
export function splitDeltas(text: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += WORDS_PER_DELTA) out.push(words.slice(i, i + WORDS_PER_DELTA).join(''));
  return out;
}

function usage(input: number, output: number): LanguageModelV3Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

/** The message's own text: its text parts, without the notes that introduce its attachments. */
function textOf(message: LanguageModelV3Message): string {
  if (message.role === 'system') return message.content;
  return message.content.map((p) => ((p.type === 'text' && !p.text.startsWith(ATTACHMENT_NOTE)) || p.type === 'reasoning' ? p.text : '')).join('');
}

/**
 * The files the message carries as file parts (images are file parts at this level): `name
 * (type, size)`, the size counted from the bytes received, the name from the part or from the
 * note before it.
 */
function filesOf(message: LanguageModelV3Message): string[] {
  if (message.role !== 'user') return [];
  const out: string[] = [];
  message.content.forEach((p, i) => {
    if (p.type !== 'file') return;
    const before = message.content[i - 1];
    const noted = before?.type === 'text' && before.text.startsWith(ATTACHMENT_NOTE) ? before.text.slice(ATTACHMENT_NOTE.length).replace(/ \([^()]*\)$/, '') : undefined;
    out.push(`${p.filename ?? noted ?? 'a file'} (${p.mediaType}, ${formatSize(byteLength(p.data))})`);
  });
  return out;
}

function byteLength(data: Uint8Array | string | URL): number {
  if (data instanceof Uint8Array) return data.byteLength;
  if (typeof data === 'string') return Buffer.from(data, 'base64').byteLength;
  return 0;
}

function outputText(output: LanguageModelV3ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return `denied${output.reason ? `: ${output.reason}` : ''}`;
    default:
      return JSON.stringify(output);
  }
}

/**
 * The prompt as the pieces its input tokens are counted of, in a fixed order: each message's role
 * marker, then its parts (text as written; a tool call, a tool result or a file as a short line),
 * then each tool's definition.
 */
export function promptPieces(options: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>): string[] {
  const out: string[] = [];
  for (const m of options.prompt) {
    out.push(`<|${m.role}|>`);
    if (m.role === 'system') {
      out.push(m.content);
      continue;
    }
    for (const p of m.content) {
      switch (p.type) {
        case 'text':
        case 'reasoning':
          out.push(p.text);
          break;
        case 'tool-call':
          out.push(`${p.toolName}(${JSON.stringify(p.input)})`);
          break;
        case 'tool-result':
          out.push(`${p.toolName} -> ${outputText(p.output)}`);
          break;
        case 'file':
          out.push(`[file ${p.mediaType}]`);
          break;
        default:
          out.push(`[${p.type}]`);
      }
    }
  }
  for (const t of options.tools ?? []) {
    out.push(t.type === 'function' ? `<|tool|>${t.name}: ${t.description ?? ''} ${JSON.stringify(t.inputSchema)}` : `<|tool|>${t.name}`);
  }
  return out;
}
