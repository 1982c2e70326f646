/**
 * Baseline (a): the cheapest JSON route fastify can serve. The bench compares the real server's
 * `GET /api/health` against this to see what Nest, its middleware and guards cost per request.
 *
 * Env: PORT (required), HOST (default 127.0.0.1).
 */
import Fastify from 'fastify';
import { serve } from './shared.js';

const app = Fastify({ logger: false });

app.get('/', async () => ({ status: 'ok' }));

await serve('bare-fastify', app);
