import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { stepCountIs, streamText, tool } from 'ai';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildSystemPrompt } from './agent.prompt.js';
import { OFFLINE_TIME_TOOL, OfflineLanguageModel, promptPieces, splitDeltas } from './offline-model.js';

const system = buildSystemPrompt({
  specialist: { name: 'Maya Chen', persona: 'You are Maya, a marketing Specialist.' },
  org: { legalName: 'Acme Corporation', timezone: 'Europe/Paris' },
  briefs: [{ title: 'Who we are', content: 'We sell anvils.' }],
  tools: [],
});

const options = (text: string, extra: Partial<LanguageModelV3CallOptions> = {}): LanguageModelV3CallOptions => ({
  prompt: [
    { role: 'system', content: system },
    { role: 'user', content: [{ type: 'text', text: 'Hi there' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] },
    { role: 'user', content: [{ type: 'text', text }] },
  ],
  ...extra,
});

async function collect(stream: ReadableStream<LanguageModelV3StreamPart>): Promise<LanguageModelV3StreamPart[]> {
  const parts: LanguageModelV3StreamPart[] = [];
  for await (const p of stream) parts.push(p);
  return parts;
}

describe('OfflineLanguageModel', () => {
  const model = new OfflineLanguageModel();

  it('is deterministic: the same prompt streams the same parts', async () => {
    const a = await collect((await model.doStream(options('Can you draft a headline for our spring sale?'))).stream);
    const b = await collect((await new OfflineLanguageModel().doStream(options('Can you draft a headline for our spring sale?'))).stream);
    expect(a).toEqual(b);
    const other = await collect((await model.doStream(options('Something else entirely'))).stream);
    expect(other).not.toEqual(a);
  });

  it('streams several deltas that join into a reply saying it is offline, as the Specialist, acknowledging the message', async () => {
    const parts = await collect((await model.doStream(options('Can you draft a headline for our spring sale?'))).stream);
    const deltas = parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : []));
    expect(deltas.length).toBeGreaterThan(3);
    const text = deltas.join('');
    expect(text).toMatch(/^Hello, this is Maya Chen\./);
    expect(text).toContain('offline model');
    expect(text).toContain('a live language model is not configured');
    expect(text).toContain('You wrote: "Can you draft a headline for our spring sale?"');
    expect(text).toContain('I have 1 client brief on file');
    const generated = await model.doGenerate(options('Can you draft a headline for our spring sale?'));
    expect(generated.content).toEqual([{ type: 'text', text }]);
  });

  it('reports real token counts: the o200k encoding of each piece of the prompt as sent, and of the output', async () => {
    const opts = options('How are you?');
    const parts = await collect((await model.doStream(opts)).stream);
    const finish = parts.find((p) => p.type === 'finish');
    const text = parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join('');
    expect(finish).toMatchObject({ type: 'finish', finishReason: { unified: 'stop' } });
    if (finish?.type !== 'finish') throw new Error('no finish');
    const pieces = promptPieces(opts);
    expect(pieces).toEqual(expect.arrayContaining(['<|system|>', system, '<|user|>', 'How are you?']));
    expect(finish.usage.inputTokens.total).toBe(pieces.reduce((n, piece) => n + encode(piece).length, 0));
    expect(finish.usage.outputTokens.total).toBe(encode(text).length);
    // A longer prompt counts more tokens.
    const longer = (await model.doGenerate(options(`How are you? ${'More words here. '.repeat(50)}`))).usage.inputTokens.total!;
    expect(longer).toBeGreaterThan(finish.usage.inputTokens.total! + 100);
  });

  it('counts a piece the same whether this instance encoded it before or not (tools and history included)', async () => {
    const tools: LanguageModelV3CallOptions['tools'] = [{ type: 'function', name: OFFLINE_TIME_TOOL, description: 'The time', inputSchema: { type: 'object', properties: {} } }];
    const fresh = options(`A question never asked before ${Math.random()}`, { tools });
    const expected = promptPieces(fresh).reduce((n, piece) => n + encode(piece).length, 0);
    expect((await model.doGenerate(fresh)).usage.inputTokens.total).toBe(expected);
    expect((await new OfflineLanguageModel().doGenerate(fresh)).usage.inputTokens.total).toBe(expected);
    // Each piece on its own: two parts of a message are two pieces, whatever their texts would make joined.
    const split = {
      prompt: [
        {
          role: 'user' as const,
          content: [
            { type: 'text' as const, text: 'ab' },
            { type: 'text' as const, text: 'c' },
          ],
        },
      ],
    };
    expect(promptPieces(split)).toEqual(['<|user|>', 'ab', 'c']);
  });

  it('calls the org-time tool when asked for the time and the tool is offered, then answers with its result (two calls through the AI SDK)', async () => {
    const calls: string[] = [];
    const result = streamText({
      model,
      system,
      messages: [{ role: 'user', content: 'What time is it for you?' }],
      tools: {
        [OFFLINE_TIME_TOOL]: tool({
          description: 'time',
          inputSchema: z.object({}),
          execute: async () => {
            calls.push('time');
            return { time: '14:05' };
          },
        }),
      },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    const text = await result.text;
    expect(calls).toEqual(['time']);
    expect((await result.steps).length).toBe(2);
    expect(text).toContain(`I looked it up. ${OFFLINE_TIME_TOOL}: {"time":"14:05"}`);
  });

  it('does not call a tool that is not offered', async () => {
    const generated = await model.doGenerate(options('What time is it?'));
    expect(generated.content[0]).toMatchObject({ type: 'text' });
  });

  it('splits deltas without losing a character', () => {
    const text = '  Hello,  world!\nThis is   a test of the delta splitter.  ';
    expect(splitDeltas(text).join('')).toBe(text);
  });
});
