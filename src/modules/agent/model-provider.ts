import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { AgentConfig } from './agent.config.js';
import type { AttachmentSupport } from './agent.attachments.js';
import { OFFLINE_MODEL_ID, OfflineLanguageModel } from './offline-model.js';

export type LlmProviderName = AgentConfig['llm']['provider'];

/** The configured model, with the provider and model names the ledger records. */
export interface ConfiguredModel {
  model: LanguageModelV3;
  provider: LlmProviderName;
  modelId: string;
  /** Which attachments the provider takes as image or file parts; the others reach it as a text summary. */
  accepts: AttachmentSupport;
  /** Loads what the model's first call would otherwise load, while the app starts. */
  warm?: () => Promise<void>;
}

/** The image types every provider here takes (OpenAI's and Anthropic's vision inputs alike). */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
/** Images and PDF documents: what OpenAI's models, OpenAI-compatible servers (image_url, file) and the offline model take. */
const IMAGES_AND_PDF: AttachmentSupport = (type) => (IMAGE_TYPES.has(type) ? 'image' : type === 'application/pdf' ? 'file' : null);
/** Anthropic also takes plain text as a document. */
const ANTHROPIC: AttachmentSupport = (type) => IMAGES_AND_PDF(type) ?? (type === 'text/plain' ? 'file' : null);

export const DEFAULT_MODELS = { openai: 'gpt-4o-mini', anthropic: 'claude-3-5-haiku-latest' } as const;

/**
 * `LLM_PROVIDER` -> an AI SDK model. agent.config.ts has already refused a hosted provider without
 * its key and an openai-compatible server without its URL and model. Only the configured
 * provider's package is loaded (each costs 50-150 ms of the start, and the default needs none).
 */
export async function createConfiguredModel(llm: AgentConfig['llm']): Promise<ConfiguredModel> {
  switch (llm.provider) {
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      const modelId = llm.model ?? DEFAULT_MODELS.openai;
      return { provider: 'openai', modelId, accepts: IMAGES_AND_PDF, model: createOpenAI({ apiKey: llm.apiKey, baseURL: llm.baseUrl })(modelId) };
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      const modelId = llm.model ?? DEFAULT_MODELS.anthropic;
      return { provider: 'anthropic', modelId, accepts: ANTHROPIC, model: createAnthropic({ apiKey: llm.apiKey, baseURL: llm.baseUrl })(modelId) };
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      const modelId = llm.model!;
      const provider = createOpenAICompatible({ name: 'openai-compatible', baseURL: llm.baseUrl!, apiKey: llm.apiKey, includeUsage: true });
      return { provider: 'openai-compatible', modelId, accepts: IMAGES_AND_PDF, model: provider.chatModel(modelId) };
    }
    default: {
      const model = new OfflineLanguageModel();
      return { provider: 'offline', modelId: OFFLINE_MODEL_ID, accepts: IMAGES_AND_PDF, model, warm: () => model.warm() };
    }
  }
}
