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
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (choice: object | null, usage?: object) =>
      res.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: request.model, choices: choice ? [choice] : [], ...(usage ? { usage } : {}) })}\n\n`,
      );
    const toolAnswered = (request.messages as Array<{ role: string }>).some((m) => m.role === 'tool');
    if (this.mode === 'tool' && !toolAnswered) {
      chunk({ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_org_local_time', arguments: '{}' } }] }, finish_reason: null });
      chunk({ index: 0, delta: {}, finish_reason: 'tool_calls' });
      chunk(null, { prompt_tokens: 200, completion_tokens: 10, total_tokens: 210 });
    } else {
      const lastUser = [...(request.messages as Array<{ role: string; content?: unknown }>)].reverse().find((m) => m.role === 'user')?.content;
      const text = Array.isArray(lastUser) ? lastUser.map((part: { text?: string }) => part.text ?? '').join('') : String(lastUser ?? '');
      const pieces = this.reply !== undefined ? [this.reply] : this.echo ? ['Answering: ', text] : ['Hello from ', 'a live ', 'model.'];
      for (const piece of pieces) chunk({ index: 0, delta: { role: 'assistant', content: piece }, finish_reason: null });
      chunk({ index: 0, delta: {}, finish_reason: 'stop' });
      chunk(null, { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 });
    }
    res.end('data: [DONE]\n\n');
  }
}
