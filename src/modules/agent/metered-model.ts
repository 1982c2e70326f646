import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';

/** What one model call came to: the ledger row's facts. */
export interface ModelCall {
  ok: boolean;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  error?: string;
}

export interface MeterOptions {
  /** Each call is abandoned after this long (the request timeout). */
  timeoutMs: number;
  /** Called exactly once per call, when it has finished or failed. */
  onCall: (call: ModelCall) => void;
}

const ERROR_MAX = 2000;

/**
 * Wraps a model so that every call to it (each step of a tool loop is one) is reported once,
 * with its tokens, latency and outcome, and is bounded by the request timeout.
 */
export function meteredModel(model: LanguageModelV3, meter: MeterOptions): LanguageModelV3 {
  const begin = (options: LanguageModelV3CallOptions) => {
    const started = performance.now();
    const timeout = AbortSignal.timeout(meter.timeoutMs);
    const caller = options.abortSignal;
    const signal = caller ? AbortSignal.any([caller, timeout]) : timeout;
    let settled = false;
    const settle = (u: LanguageModelV3Usage | undefined, failure?: unknown) => {
      if (settled) return;
      settled = true;
      const error = failure === undefined ? undefined : describeFailure(failure, { timedOut: timeout.aborted && !caller?.aborted, timeoutMs: meter.timeoutMs, cancelled: caller?.aborted ?? false });
      meter.onCall({
        ok: error === undefined,
        inputTokens: u?.inputTokens.total ?? 0,
        outputTokens: u?.outputTokens.total ?? 0,
        latencyMs: Math.round(performance.now() - started),
        error,
      });
    };
    return { options: { ...options, abortSignal: signal }, settle };
  };

  return {
    specificationVersion: 'v3',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,

    async doGenerate(options) {
      const call = begin(options);
      try {
        const result = await model.doGenerate(call.options);
        call.settle(result.usage);
        return result;
      } catch (err) {
        call.settle(undefined, err);
        throw err;
      }
    },

    async doStream(options) {
      const call = begin(options);
      let result: Awaited<ReturnType<LanguageModelV3['doStream']>>;
      try {
        result = await model.doStream(call.options);
      } catch (err) {
        call.settle(undefined, err);
        throw err;
      }
      const reader = result.stream.getReader();
      let usage: LanguageModelV3Usage | undefined;
      let streamError: unknown;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) {
              if (streamError === undefined && usage === undefined) streamError = new Error('The model stream ended without finishing');
              call.settle(usage, streamError);
              controller.close();
              return;
            }
            if (value.type === 'finish') usage = value.usage;
            if (value.type === 'error') streamError ??= value.error;
            controller.enqueue(value);
          } catch (err) {
            call.settle(usage, err);
            controller.error(err);
          }
        },
        async cancel(reason) {
          call.settle(usage, reason ?? new Error('The model stream was cancelled'));
          await reader.cancel(reason);
        },
      });
      return { ...result, stream };
    },
  };
}

/** A short, loggable reason: the HTTP status and message of a provider error, or the timeout. */
export function describeFailure(err: unknown, ctx: { timedOut: boolean; timeoutMs: number; cancelled: boolean }): string {
  if (ctx.timedOut) return `timeout: no complete answer within ${ctx.timeoutMs} ms`;
  if (ctx.cancelled) return 'cancelled by the caller';
  const e = err as { name?: string; message?: string; statusCode?: number };
  const text = e instanceof Error || typeof e?.message === 'string' ? `${e.name ?? 'Error'}: ${e.message}` : String(err);
  const status = typeof e?.statusCode === 'number' ? `HTTP ${e.statusCode} ` : '';
  return (status + text).slice(0, ERROR_MAX);
}
