/**
 * The price table of the LLM cost ledger (spec 2.9), in USD per million tokens. A price per
 * million tokens in USD is the price of one token in micro-USD, so a call costs
 * `inputTokens * input + outputTokens * output` micro-USD, rounded to a whole micro-USD.
 * Keep docs/agent.md in step with this table.
 */
export interface ModelPrice {
  /** USD per million input (prompt) tokens. */
  input: number;
  /** USD per million output (completion) tokens. */
  output: number;
}

/** Model ids are matched exactly, then by the longest listed prefix (dated snapshots, `-latest`). */
export const PRICE_TABLE: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5': { input: 1.25, output: 10 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-7-sonnet': { input: 3, output: 15 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-opus-4': { input: 15, output: 75 },
};

/**
 * A model the table does not list (an openai-compatible server's own model, a new release) is
 * priced like a mid-range hosted model, so an unknown model never shows as free.
 */
export const DEFAULT_PRICE: ModelPrice = { input: 3, output: 15 };

/** The offline model runs in-process and costs nothing. */
export const OFFLINE_PRICE: ModelPrice = { input: 0, output: 0 };

export function priceFor(provider: string, model: string): ModelPrice {
  if (provider === 'offline') return OFFLINE_PRICE;
  const id = model.toLowerCase();
  const exact = PRICE_TABLE[id];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(PRICE_TABLE)) {
    if (id.startsWith(`${key}-`) && (!best || key.length > best.length)) best = key;
  }
  return best ? PRICE_TABLE[best]! : DEFAULT_PRICE;
}

export function costMicroUsd(price: ModelPrice, tokens: { inputTokens: number; outputTokens: number }): number {
  return Math.round(tokens.inputTokens * price.input + tokens.outputTokens * price.output);
}
