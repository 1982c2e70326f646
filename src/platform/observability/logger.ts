import { pino, type DestinationStream, type Logger } from 'pino';
import type { LoggerService } from '@nestjs/common';

/** Paths never written to a log line. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-bootstrap-token"]',
  'headers.authorization',
  '*.password',
  '*.passwordHash',
  '*.token',
  '*.secret',
  '*.secrets',
  '*.code',
  'password',
  'token',
  'secrets',
];

export let logger: Logger = pino({ level: process.env.LOG_LEVEL ?? 'info', redact: { paths: REDACT, censor: '[redacted]' } });

let destination: DestinationStream | undefined;

/** Where the next configured logger writes (default: standard output); a test reads the lines here. */
export function setLogDestination(stream: DestinationStream | undefined): void {
  destination = stream;
}

export function configureLogger(level: string): Logger {
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' } };
  logger = destination ? pino(options, destination) : pino(options);
  return logger;
}

const QUIET_CONTEXTS = new Set(['RouterExplorer', 'RoutesResolver', 'InstanceLoader', 'NestFactory']);

/** Nest's LoggerService on top of pino. */
export class PinoNestLogger implements LoggerService {
  log(message: unknown, context?: string) {
    // Nest's route-mapping chatter is debug detail, not start-up news.
    if (context && QUIET_CONTEXTS.has(context)) logger.debug({ context }, String(message));
    else logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    logger.trace({ context }, String(message));
  }
}
