import { CONFIG_SLICES } from './app.config.js';
import { createApp } from './app.factory.js';
import { ConfigError, loadConfig } from './platform/config/config.js';
import { restrictNewFiles } from './platform/config/data-dir.js';
import { logger } from './platform/observability/logger.js';
import { DEMO_PASSWORD, DEMO_USERS } from './modules/demo/index.js';

async function main(): Promise<void> {
  // Before anything is written: DATA_DIR (database, WAL, keys) is private to the service user.
  restrictNewFiles();
  let config;
  try {
    config = loadConfig(process.env, CONFIG_SLICES);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const running = await createApp(config);
  // Graceful stop: stop accepting, drain requests and jobs, close the database (PGlite flushes).
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    running
      .close()
      .then(() => process.exit(0))
      .catch((err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await running.app.listen(config.port, config.host);
  const url = `http://localhost:${config.port}`;
  const lines = [
    '',
    `  Client Organization Service is running on ${url}`,
    `  Database: ${config.databaseUrl ? 'PostgreSQL' : `embedded (PGlite in ${config.dataDir})`}; Redis: ${config.redisUrl ? 'yes' : 'no (in-memory)'}`,
    `  API docs: ${url}/api/docs`,
  ];
  if (config.seedDemoData) {
    lines.push(`  Demo logins (password "${DEMO_PASSWORD}"):`);
    for (const u of DEMO_USERS) lines.push(`    ${u.platformRole.padEnd(16)} ${u.email}`);
    lines.push(`  Dev mail outbox: ${url}/dev/mail`);
  }
  process.stdout.write(lines.join('\n') + '\n\n');
}

main().catch((err) => {
  logger.fatal({ err }, 'failed to start');
  process.exit(1);
});
