import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentConfig } from './agent.config.js';
import { AgentService } from './agent.service.js';
import { createConfiguredModel } from './model-provider.js';
import { OfflineLanguageModel } from './offline-model.js';

const llm = (provider: AgentConfig['llm']['provider']) => ({ provider, apiKey: 'sk-test', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }) as AgentConfig['llm'];

describe('the configured model, warmed while the app starts', () => {
  afterEach(() => vi.restoreAllMocks());

  it('the offline model loads its tokenizer when the agent module starts, before any turn', async () => {
    const warm = vi.spyOn(OfflineLanguageModel.prototype, 'warm');
    // Only the configuration is used while it starts: the other collaborators are never reached.
    const agent: AgentService = Reflect.construct(AgentService, [{ llm: llm('offline') }]);
    expect(warm).not.toHaveBeenCalled();
    await agent.onModuleInit();
    expect(warm).toHaveBeenCalledTimes(1);
    await expect(warm.mock.results[0]!.value).resolves.toBeUndefined();
  });

  it('a hosted provider has nothing to load', async () => {
    for (const provider of ['openai', 'anthropic', 'openai-compatible'] as const) expect((await createConfiguredModel(llm(provider))).warm).toBeUndefined();
    expect((await createConfiguredModel(llm('offline'))).warm).toBeTypeOf('function');
  });
});
