import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { sendError } from '../errors/http-exception.filter.js';
import { projectRoot } from '../paths.js';

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Client Organization Service</title>
<p>The web app is not built yet. Run <code>npm run build</code> (or <code>npm start</code>), then reload.</p>`;

/**
 * Serves the built web app at the origin root: its files, and index.html for every other GET
 * outside /api (the SPA's own routes). Unknown /api paths answer the JSON 404.
 */
export async function mountWebApp(app: NestFastifyApplication): Promise<void> {
  const dir = join(projectRoot(), 'dist', 'web');
  const indexFile = join(dir, 'index.html');
  const built = existsSync(indexFile);
  if (built) {
    await app.register(fastifyStatic, { root: dir, wildcard: false, index: false, maxAge: '1h', immutable: false });
  }
  const indexHtml = built ? readFileSync(indexFile, 'utf8') : NOT_BUILT;
  const fastify = app.getHttpAdapter().getInstance();
  const fallback = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    if (path === '/api' || path.startsWith('/api/') || path.startsWith('/socket.io/')) {
      sendError(request, reply, new AppError('not_found', 'Route not found'));
      return;
    }
    void reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);
  };
  fastify.get('/', fallback);
  fastify.get('/*', fallback);
}
