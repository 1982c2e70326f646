import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormLimitError, MalformedFormError, acceptMultipartBodies, isMultipart, readForm, type FormLimits } from './multipart.js';

const LIMITS: FormLimits = { fieldSize: 64, fileSize: 1024, fields: 3, files: 1, parts: 4 };

/** A multipart/form-data body as a browser writes it (the platform's FormData and Response). */
async function formBody(fill: (form: FormData) => void): Promise<{ body: Buffer; type: string }> {
  const form = new FormData();
  fill(form);
  const response = new Response(form);
  return { body: Buffer.from(await response.arrayBuffer()), type: response.headers.get('content-type')! };
}

describe('readForm', () => {
  let app: FastifyInstance;
  let port: number;
  let connections = 0;
  // One connection for every request: what a refused form leaves behind would break the next one.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  beforeAll(async () => {
    app = Fastify({ logger: false });
    acceptMultipartBodies(app);
    app.post('/form', async (req) => {
      if (!isMultipart(req)) return { multipart: false };
      try {
        const parts = await readForm(req, LIMITS);
        return { parts: parts.map((part) => (part.kind === 'file' ? { ...part, data: part.data.toString('utf8') } : part)) };
      } catch (err) {
        if (err instanceof FormLimitError) return { limit: err.limit };
        if (err instanceof MalformedFormError) return { malformed: true };
        throw err;
      }
    });
    app.server.on('connection', () => connections++);
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agent.destroy();
    await app.close();
  });

  const post = (body: Buffer, type: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path: '/form', method: 'POST', agent, headers: { 'content-type': type, 'content-length': body.length } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
      });
      req.on('error', reject);
      req.end(body);
    });

  it('reads the text fields and the files in the order of the form', async () => {
    const { body, type } = await formBody((form) => {
      form.append('subject', 'Hello');
      form.append('attachment', new Blob(['the bytes'], { type: 'text/plain' }), 'notes.txt');
      form.append('sender', 'a@example.com');
    });
    expect(await post(body, type)).toEqual({
      parts: [
        { kind: 'field', name: 'subject', value: 'Hello' },
        { kind: 'file', name: 'attachment', filename: 'notes.txt', mimetype: 'text/plain', data: 'the bytes' },
        { kind: 'field', name: 'sender', value: 'a@example.com' },
      ],
    });
  });

  it('refuses a form past any of its limits, and the connection serves the next request', async () => {
    const before = connections;
    const cases: Array<[string, (form: FormData) => void]> = [
      ['fileSize', (form) => form.append('file', new Blob(['x'.repeat(4096)]), 'big.bin')],
      ['files', (form) => ['a', 'b'].forEach((name) => form.append(name, new Blob(['x']), `${name}.bin`))],
      ['fields', (form) => ['a', 'b', 'c', 'd'].forEach((name) => form.append(name, 'x'))],
      ['fieldSize', (form) => form.append('long', 'x'.repeat(65))],
    ];
    for (const [limit, fill] of cases) {
      const { body, type } = await formBody(fill);
      expect(await post(body, type), limit).toEqual({ limit });
    }
    const { body, type } = await formBody((form) => form.append('ok', 'yes'));
    expect(await post(body, type)).toEqual({ parts: [{ kind: 'field', name: 'ok', value: 'yes' }] });
    expect(connections - before).toBeLessThanOrEqual(1);
  });

  it('calls a body without a boundary, or with broken parts, malformed; another media type is not a form', async () => {
    expect(await post(Buffer.from('anything'), 'multipart/form-data')).toEqual({ malformed: true });
    expect(await post(Buffer.from('--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nunfinished'), 'multipart/form-data; boundary=xyz')).toEqual({ malformed: true });
    expect(await post(Buffer.from('{}'), 'text/plain')).toEqual({ multipart: false });
  });
});
