import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local OpenAI-compatible server: each test sets how it answers. */
export class FakeProvider {
  mode: 'ok' | 'fail' | 'hang' | 'tool' = 'ok';
  /** A slow model: how long an answer waits before its first byte. */
  delayMs = 0;
  /** Each answer quotes the last user message (`Answering: <text>`), so a test can tell whose answer it is. */
  echo = false;
  /** When set, every answer is this text (a long reply, for limits on what a channel sends). */
  reply?: string;
  readonly requests: Array<{ messages: Array<{ role: string; content?: unknown }>; tools?: Array<{ function: { name: string } }>; stream?: boolean }> = [];
  private readonly hanging: ServerResponse[] = [];
  readonly server: Server = createServer((req, res) => void this.handle(req, res));

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += chunk;
    const request = JSON.parse(body);
    this.requests.push(request);
    if (this.mode === 'fail') {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'upstream exploded', type: 'server_error' } }));
      return;
    }
    if (this.mode === 'hang') {
      this.hanging.push(res);
      return;
    }
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    const toolAnswered = (request.messages as Array<{ role: string }>).some((m) => m.role === 'tool');
    const answer: Answer =
      this.mode === 'tool' && !toolAnswered
        ? { toolCall: { id: 'call_1', name: 'get_org_local_time', arguments: '{}' }, usage: { prompt_tokens: 200, completion_tokens: 10, total_tokens: 210 } }
        : { pieces: this.pieces(request.messages), usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 } };
    // As the API does: a stream of chunks when the request asks for one, else one completion object.
    if (request.stream === true) this.stream(res, request.model, answer);
    else this.complete(res, request.model, answer);
  }

  private pieces(messages: Array<{ role: string; content?: unknown }>): string[] {
    if (this.reply !== undefined) return [this.reply];
    if (!this.echo) return ['Hello from ', 'a live ', 'model.'];
    const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content;
    return ['Answering: ', Array.isArray(lastUser) ? lastUser.map((part: { text?: string }) => part.text ?? '').join('') : String(lastUser ?? '')];
  }

  /** `stream: true`: server-sent `chat.completion.chunk` events, the usage in the last one, then `[DONE]`. */
  private stream(res: ServerResponse, model: string, answer: Answer): void {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (choice: object | null, usage?: object) =>
      res.write(`data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: choice ? [choice] : [], ...(usage ? { usage } : {}) })}\n\n`);
    if ('toolCall' in answer) {
      const { id, name, arguments: args } = answer.toolCall;
      chunk({ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: args } }] }, finish_reason: null });
      chunk({ index: 0, delta: {}, finish_reason: 'tool_calls' });
    } else {
      for (const piece of answer.pieces) chunk({ index: 0, delta: { role: 'assistant', content: piece }, finish_reason: null });
      chunk({ index: 0, delta: {}, finish_reason: 'stop' });
    }
    chunk(null, answer.usage);
    res.end('data: [DONE]\n\n');
  }

  /** Without `stream`: one `chat.completion` object. */
  private complete(res: ServerResponse, model: string, answer: Answer): void {
    const message =
      'toolCall' in answer
        ? { role: 'assistant', content: null, tool_calls: [{ id: answer.toolCall.id, type: 'function', function: { name: answer.toolCall.name, arguments: answer.toolCall.arguments } }] }
        : { role: 'assistant', content: answer.pieces.join('') };
    const finishReason = 'toolCall' in answer ? 'tool_calls' : 'stop';
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1_700_000_000, model, choices: [{ index: 0, message, finish_reason: finishReason }], usage: answer.usage }));
  }
}

type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };
type Answer = { toolCall: { id: string; name: string; arguments: string }; usage: Usage } | { pieces: string[]; usage: Usage };
