/**
 * What the baselines share: their environment, the RS256 bearer check with jose, the pg Pool of
 * 10, and listening until SIGTERM / SIGINT. Not a baseline itself.
 */
import type { FastifyInstance } from 'fastify';
import { importSPKI, jwtVerify, type JWTPayload } from 'jose';
import pg from 'pg';

/** The value of a required environment variable; exits 2 (naming the baseline) when it is missing. */
export function required(baseline: string, name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`${baseline}: ${name} must be set`);
    process.exit(2);
  }
  return value;
}

/** PORT (required, a port number) and HOST (default 127.0.0.1). */
export function listenAddress(baseline: string): { port: number; host: string } {
  const port = Number(process.env.PORT);
  if (!Number.isInteger(port) || port <= 0) {
    console.error(`${baseline}: PORT must be set to a port number`);
    process.exit(2);
  }
  return { port, host: process.env.HOST || '127.0.0.1' };
}

/**
 * A verifier of `Authorization: Bearer <token>` against JWT_PUBLIC_KEY (SPKI PEM): RS256 only, as
 * the server. Resolves the payload with its `sub`, or undefined (answer 401).
 */
export async function bearerVerifier(baseline: string): Promise<(authorization: string | undefined) => Promise<(JWTPayload & { sub: string }) | undefined>> {
  const publicKey = await importSPKI(required(baseline, 'JWT_PUBLIC_KEY'), 'RS256');
  return async (authorization) => {
    const match = /^Bearer (.+)$/i.exec(authorization ?? '');
    if (!match) return undefined;
    try {
      const { payload } = await jwtVerify(match[1] ?? '', publicKey, { algorithms: ['RS256'] });
      return payload.sub ? { ...payload, sub: payload.sub } : undefined;
    } catch {
      return undefined;
    }
  };
}

/** A pg Pool of 10 on DATABASE_URL. */
export function benchPool(baseline: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: required(baseline, 'DATABASE_URL'), max: 10 });
  pool.on('error', (err) => console.error(`${baseline}: idle client error: ${err.message}`));
  return pool;
}

/** The caller's row by primary key: the auth read of every authenticated baseline. */
export const USER_BY_ID = 'select id, email, name, platform_role, status, password_changed_at from users where id = $1';

/** Listens on PORT / HOST; SIGTERM or SIGINT close the app, then the pool, then exit 0. */
export async function serve(baseline: string, app: FastifyInstance, pool?: pg.Pool): Promise<void> {
  const { port, host } = listenAddress(baseline);
  const shutdown = () => {
    void app
      .close()
      .then(() => pool?.end())
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await app.listen({ port, host });
}
