/**
 * Baseline (a): the cheapest JSON route fastify can serve. The bench compares the real server's
 * `GET /api/health` against this to see what Nest, its middleware and guards cost per request.
 *
 * Env: PORT (required), HOST (default 127.0.0.1).
 */
import Fastify from 'fastify';

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) {
  console.error('bare-fastify: PORT must be set to a port number');
  process.exit(2);
}
const host = process.env.HOST || '127.0.0.1';

const app = Fastify({ logger: false });

app.get('/', async () => ({ status: 'ok' }));

const shutdown = () => {
  void app.close().finally(() => process.exit(0));
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);

await app.listen({ port, host });
