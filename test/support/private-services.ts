import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { freePort, sleep } from './processes.js';

/**
 * PostgreSQL and Redis servers of a test's own, on free ports and temporary directories, that the
 * test may stop and start at will. The machine's shared services are never touched.
 */

function onPath(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, binary))) return join(dir, binary);
  }
  return undefined;
}

/** The PostgreSQL binaries directory: PG_BINDIR, else what `pg_config --bindir` says, else where `initdb` is on PATH. */
export function postgresBinDir(): string | undefined {
  const candidates: Array<() => string | undefined> = [
    () => process.env.PG_BINDIR,
    () => (onPath('pg_config') ? execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim() : undefined),
    () => {
      const initdb = onPath('initdb');
      return initdb ? join(initdb, '..') : undefined;
    },
  ];
  for (const candidate of candidates) {
    let dir: string | undefined;
    try {
      dir = candidate();
    } catch {
      dir = undefined;
    }
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return undefined;
}

/** Why the private services cannot run here, or undefined when they can. */
export function privateServicesMissing(): string | undefined {
  if (!postgresBinDir()) return 'the PostgreSQL binaries (initdb, pg_ctl) were not found: set PG_BINDIR';
  if (!onPath('redis-server')) return 'redis-server is not on PATH';
  if (process.getuid?.() === 0) {
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root needs a postgres user to run the private PostgreSQL server';
    }
  }
  return undefined;
}

/** PostgreSQL refuses to run as root: as root, its commands run as the postgres user. */
function asServerUser(binary: string, args: string[]): { command: string; args: string[] } {
  if (process.getuid?.() !== 0) return { command: binary, args };
  return { command: 'runuser', args: ['-u', 'postgres', '--', binary, ...args] };
}

function run(binary: string, args: string[]): string {
  const c = asServerUser(binary, args);
  return execFileSync(c.command, c.args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: tmpdir() });
}

export interface PrivatePostgres {
  /** The `cos` database on this server. */
  url: string;
  port: number;
  /** `pg_ctl stop`: fast (clients disconnected) or immediate (a crash). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its directory. */
  close(): Promise<void>;
  log(): string;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('the PostgreSQL binaries were not found');
  const dir = mkdtempSync(join(tmpdir(), 'cos-private-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  run(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const start = async () => {
    run(join(bin, 'pg_ctl'), ['-D', dataDir, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']);
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    run(join(bin, 'pg_ctl'), ['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
  };
  await start();
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('create database cos');
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/cos`,
    port,
    stop,
    start,
    async close() {
      try {
        await stop('immediate');
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
  };
}

export interface PrivateRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL): nothing is saved, like a crash. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cos-private-redis-'));
  let server: ChildProcess | undefined;
  const start = async () => {
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    server = child;
    const deadline = Date.now() + 10_000;
    while (!(await pingRedis(port))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await sleep(50);
    }
  };
  const stop = async () => {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One PING over a plain socket: true on +PONG. */
async function pingRedis(port: number): Promise<boolean> {
  const { createConnection } = await import('node:net');
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}
