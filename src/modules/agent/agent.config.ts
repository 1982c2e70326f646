import { intFrom, oneOf, optionalString, optionalUrl } from '../../platform/config/env-fields.js';
import { defineConfigSlice } from '../../platform/config/slice.js';

/** The model the agent runs on (docs/agent.md). */
export const agentConfig = defineConfigSlice('agent', {
  variables: {
    LLM_PROVIDER: oneOf(['offline', 'openai', 'anthropic', 'openai-compatible'], 'offline'),
    LLM_MODEL: optionalString,
    LLM_API_KEY: optionalString,
    LLM_BASE_URL: optionalUrl,
    LLM_TIMEOUT_MS: intFrom(60_000, 1),
  },
  /** A hosted provider needs its key; an openai-compatible server needs its URL and a model name. */
  check(e) {
    switch (e.LLM_PROVIDER) {
      case 'openai':
      case 'anthropic':
        return e.LLM_API_KEY ? undefined : `LLM_API_KEY: required with LLM_PROVIDER=${e.LLM_PROVIDER}`;
      case 'openai-compatible':
        if (!e.LLM_BASE_URL) return 'LLM_BASE_URL: required with LLM_PROVIDER=openai-compatible';
        return e.LLM_MODEL ? undefined : 'LLM_MODEL: required with LLM_PROVIDER=openai-compatible';
      default:
        return undefined;
    }
  },
  build: (e) => ({
    llm: {
      provider: e.LLM_PROVIDER,
      model: e.LLM_MODEL,
      apiKey: e.LLM_API_KEY,
      baseUrl: e.LLM_BASE_URL,
      /** Each model call is abandoned (and recorded as failed) after this long. */
      timeoutMs: e.LLM_TIMEOUT_MS,
    },
  }),
});

export type AgentConfig = ReturnType<typeof agentConfig.read>;
