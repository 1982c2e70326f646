import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { meteredModel, type ModelCall } from './metered-model.js';
import { OfflineLanguageModel } from './offline-model.js';

const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hi' }] }];

function streamingOnly(parts: LanguageModelV3StreamPart[]): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'test',
    modelId: 'test',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    doStream: async () => ({ stream: new ReadableStream({ start: (c) => (parts.forEach((p) => c.enqueue(p)), c.close()) }) }),
  };
}

async function drain(model: LanguageModelV3): Promise<void> {
  const { stream } = await model.doStream({ prompt });
  for await (const _ of stream);
}

describe('meteredModel', () => {
  it('reports each call once with the usage of its finish part', async () => {
    const calls: ModelCall[] = [];
    const model = meteredModel(new OfflineLanguageModel(), { timeoutMs: 5000, onCall: (c) => calls.push(c) });
    await drain(model);
    await model.doGenerate({ prompt });
    expect(calls).toHaveLength(2);
    expect(calls.every((c) => c.ok && c.inputTokens > 0 && c.outputTokens > 0 && c.error === undefined)).toBe(true);
    expect(calls[0]!.inputTokens).toBe(calls[1]!.inputTokens);
  });

  it('reports a stream that ends without finishing, or carries an error part, as failed', async () => {
    const calls: ModelCall[] = [];
    const onCall = (c: ModelCall) => calls.push(c);
    await drain(
      meteredModel(
        streamingOnly([
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Hi' },
        ]),
        { timeoutMs: 5000, onCall },
      ),
    );
    await drain(meteredModel(streamingOnly([{ type: 'error', error: Object.assign(new Error('overloaded'), { statusCode: 529 }) }]), { timeoutMs: 5000, onCall }));
    expect(calls.map((c) => [c.ok, c.error])).toEqual([
      [false, 'Error: The model stream ended without finishing'],
      [false, 'HTTP 529 Error: overloaded'],
    ]);
  });

  it('reports a call that fails before streaming', async () => {
    const calls: ModelCall[] = [];
    const failing: LanguageModelV3 = { ...streamingOnly([]), doStream: () => Promise.reject(new TypeError('fetch failed')) };
    await expect(meteredModel(failing, { timeoutMs: 5000, onCall: (c) => calls.push(c) }).doStream({ prompt })).rejects.toThrow('fetch failed');
    expect(calls).toEqual([expect.objectContaining({ ok: false, inputTokens: 0, outputTokens: 0, error: 'TypeError: fetch failed' })]);
  });
});
