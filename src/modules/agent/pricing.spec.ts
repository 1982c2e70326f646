import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICE, PRICE_TABLE, costMicroUsd, priceFor } from './pricing.js';

describe('price table', () => {
  it('prices a listed model exactly and a dated snapshot by its longest listed prefix', () => {
    expect(priceFor('openai', 'gpt-4o-mini')).toEqual({ input: 0.15, output: 0.6 });
    expect(priceFor('openai', 'gpt-4o-mini-2024-07-18')).toEqual(PRICE_TABLE['gpt-4o-mini']);
    expect(priceFor('openai', 'gpt-4o-2024-08-06')).toEqual(PRICE_TABLE['gpt-4o']);
    expect(priceFor('anthropic', 'claude-sonnet-4-20250514')).toEqual(PRICE_TABLE['claude-sonnet-4']);
    expect(priceFor('anthropic', 'claude-3-5-haiku-latest')).toEqual(PRICE_TABLE['claude-3-5-haiku']);
  });

  it('does not take a longer name for a shorter one (gpt-4.1-mini is not gpt-4.1)', () => {
    expect(priceFor('openai', 'gpt-4.1-mini')).toEqual(PRICE_TABLE['gpt-4.1-mini']);
    expect(priceFor('openai', 'gpt-4.1')).toEqual(PRICE_TABLE['gpt-4.1']);
  });

  it('uses the documented default for an unknown model, and 0 for the offline model', () => {
    expect(priceFor('openai-compatible', 'llama-3.1-8b-instruct')).toEqual(DEFAULT_PRICE);
    expect(priceFor('offline', 'anything')).toEqual({ input: 0, output: 0 });
  });

  it('computes micro-USD from tokens: USD per million tokens is micro-USD per token', () => {
    // 1000 input tokens at $0.15/M + 500 output tokens at $0.60/M = $0.00045 = 450 micro-USD.
    expect(costMicroUsd(priceFor('openai', 'gpt-4o-mini'), { inputTokens: 1000, outputTokens: 500 })).toBe(450);
    expect(costMicroUsd(DEFAULT_PRICE, { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(18_000_000);
    expect(costMicroUsd(priceFor('openai', 'gpt-4o-mini'), { inputTokens: 3, outputTokens: 0 })).toBe(0);
    expect(costMicroUsd(priceFor('openai', 'gpt-4o-mini'), { inputTokens: 4, outputTokens: 0 })).toBe(1);
  });
});
