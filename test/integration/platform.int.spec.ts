import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DemoService } from '../../src/modules/demo/index.js';
import { UsersService } from '../../src/modules/users/index.js';
import { users } from '../../src/modules/users/users.tables.js';
import { AuditService } from '../../src/platform/audit/audit.service.js';
import { auditLog } from '../../src/platform/audit/audit.tables.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { MailService } from '../../src/platform/mail/mail.service.js';
import { SchedulerService } from '../../src/platform/queue/scheduler.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: any[] }).rows);

describe('transactions, audit and demo seed', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('rolls a multi-row write back as a whole and drops its after-commit effects', async () => {
    const db = app.running.app.get(DbService);
    const users = app.running.app.get(UsersService);
    let effect = false;
    await expect(
      db.transaction(async () => {
        await users.create({ email: 'tx-one@example.com', platformRole: 'expert' });
        db.afterCommit(() => (effect = true));
        await users.create({ email: 'tx-one@example.com', platformRole: 'expert' });
      }),
    ).rejects.toThrow(/Email already in use/);
    expect(await users.findByEmail('tx-one@example.com')).toBeUndefined();
    expect(effect).toBe(false);
  });

  it('hands each transaction its own context, joins nested calls, and leaves none behind', async () => {
    const db = app.running.app.get(DbService);
    const seen: boolean[] = [];
    const run = (delay: number) =>
      db.transaction(async (tx) => {
        await new Promise((r) => setTimeout(r, delay));
        seen.push(db.db === tx);
        await db.transaction(async (inner) => void seen.push(inner === tx));
      });
    await Promise.all([run(30), run(5)]);
    expect(seen).toEqual([true, true, true, true]);
    expect(db.inTransaction).toBe(false);
    expect(db.db).toBe(db.root);
  });

  it('builds a prepared statement once outside transactions, and runs it on the open transaction inside one', async () => {
    const db = app.running.app.get(DbService);
    const service = app.running.app.get(UsersService);
    let builds = 0;
    const byEmail = db.prepared<Array<{ email: string }>, { email: string }>('test_users_email_by_email', (d) => {
      builds++;
      return d
        .select({ email: users.email })
        .from(users)
        .where(eq(users.email, sql.placeholder('email')));
    });
    await service.create({ email: 'prepared-a@example.com', platformRole: 'expert' });
    await service.create({ email: 'prepared-b@example.com', platformRole: 'expert' });
    // Each call takes its own values: nothing of the first call is frozen into the statement.
    expect(await byEmail({ email: 'prepared-a@example.com' })).toEqual([{ email: 'prepared-a@example.com' }]);
    expect(await byEmail({ email: 'prepared-b@example.com' })).toEqual([{ email: 'prepared-b@example.com' }]);
    expect(await byEmail({ email: 'prepared-none@example.com' })).toEqual([]);
    expect(builds).toBe(1);
    // Inside a transaction it reads the transaction's own uncommitted row (on PGlite, a statement on
    // the root connection would wait for the transaction forever), and the rollback leaves none.
    await expect(
      db.transaction(async () => {
        await service.create({ email: 'prepared-tx@example.com', platformRole: 'expert' });
        expect(await byEmail({ email: 'prepared-tx@example.com' })).toEqual([{ email: 'prepared-tx@example.com' }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(builds).toBe(2);
    expect(await byEmail({ email: 'prepared-tx@example.com' })).toEqual([]);
    expect(builds).toBe(2);
  });

  it('keeps the business write when the audit write fails (best-effort, spec 2.10)', async () => {
    const db = app.running.app.get(DbService);
    const users = app.running.app.get(UsersService);
    const audit = app.running.app.get(AuditService);
    await db.transaction(async () => {
      await users.create({ email: 'audited@example.com', platformRole: 'expert' });
      // Not a uuid: the audit insert fails after the commit.
      await audit.record({ action: 'test.broken', userId: 'not-a-uuid' });
      await audit.record({ action: 'test.fine', resourceId: 'audited@example.com' });
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(await users.findByEmail('audited@example.com')).toBeDefined();
    const rows = await db.root
      .select()
      .from(auditLog)
      .where(sql`${auditLog.action} like 'test.%'`);
    expect(rows.map((r) => r.action)).toEqual(['test.fine']);
  });

  it('seeds the demo data once: a second run changes nothing', async () => {
    const demo = app.running.app.get(DemoService);
    const db = app.running.app.get(DbService);
    const count = async () =>
      rowsOf(await db.root.execute(sql`select (select count(*) from users) u, (select count(*) from orgs) o, (select count(*) from specialists) s, (select count(*) from org_memberships) m`))[0];
    const before = await count();
    expect(await demo.seedIfEmpty()).toBe(false);
    expect(await count()).toEqual(before);
    const names = rowsOf(await db.root.execute(sql`select name from specialists order by name`)).map((r: { name: string }) => r.name);
    expect(names).toHaveLength(5);
    expect(names).toContain('Émilie Laurent');
    expect(names).toContain('Jean-Luc Moreau');
  });

  it('seeds into an empty database', async () => {
    const empty = await startTestApp({ seeded: false });
    try {
      expect(await empty.running.app.get(DemoService).seedIfEmpty()).toBe(true);
      expect((await empty.post('/api/auth/login', { email: 'org_admin@acme.demo.invalid', password: 'demo1234' })).status).toBe(200);
    } finally {
      await empty.close();
    }
  });
});

describe('leader lock and periodic work (spec 8)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('gives the lease to one instance until it expires (TTL 30 s)', async () => {
    const db = app.running.app.get(DbService);
    const a = new SchedulerService(db);
    const b = new SchedulerService(db);
    const own = app.running.app.get(SchedulerService);
    // The app's own scheduler holds the lease already.
    expect(own.isLeader).toBe(true);
    expect(await a.renewLease()).toBe(false);
    expect(await b.renewLease()).toBe(false);
    expect(await own.renewLease()).toBe(true);
    await db.root.execute(sql`update leader_locks set expires_at = now() - interval '1 second'`);
    expect(await a.renewLease()).toBe(true);
    expect(a.isLeader).toBe(true);
    expect(await b.renewLease()).toBe(false);
    expect(await own.renewLease()).toBe(false);
    const [lock] = rowsOf(await db.root.execute(sql`select holder, extract(epoch from (expires_at - now())) as ttl from leader_locks`));
    expect(lock.holder).toBe(a.instanceId);
    expect(Number(lock.ttl)).toBeGreaterThan(25);
    expect(Number(lock.ttl)).toBeLessThanOrEqual(30);
  });

  it('runs a period once, whichever instance asks', async () => {
    const db = app.running.app.get(DbService);
    const a = new SchedulerService(db);
    const b = new SchedulerService(db);
    let runs = 0;
    const task = { name: 'test.once', run: async () => void runs++ };
    const results = await Promise.all([a.runOnce(task, 100), b.runOnce(task, 100), a.runOnce(task, 100)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(runs).toBe(1);
    expect(await b.runOnce(task, 101)).toBe(true);
    expect(runs).toBe(2);
  });

  it('asks the database about a period once per instance, not on every tick', async () => {
    const db = app.running.app.get(DbService);
    const own = app.running.app.get(SchedulerService);
    // The lease back from the instance the test before gave it to.
    await db.root.execute(sql`update leader_locks set expires_at = now() - interval '1 second'`);
    expect(await own.renewLease()).toBe(true);
    const asked = vi.spyOn(own, 'runOnce');
    try {
      let runs = 0;
      // Registered after the app started: ticked from the next second on, one period per hour.
      own.every('test.hourly', 3_600_000, async () => void runs++);
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      const hourly = asked.mock.calls.filter(([task]) => task.name === 'test.hourly');
      expect(hourly).toHaveLength(1);
      expect(runs).toBe(1);
      const [claim] = rowsOf(await db.root.execute(sql`select period from periodic_task_runs where name = 'test.hourly'`));
      expect(Number(claim.period)).toBe(hourly[0]![1]);
    } finally {
      asked.mockRestore();
    }
  });
});

describe('mail through SMTP and the job queue', () => {
  let smtp: SMTPServer;
  let received: Array<{ to: string[]; raw: string }>;
  let app: TestApp;
  beforeAll(async () => {
    received = [];
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (c: Buffer) => (raw += c.toString()));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
          callback();
        });
      },
    });
    smtp.listen(0, '127.0.0.1');
    await once(smtp.server, 'listening');
    const port = (smtp.server.address() as AddressInfo).port;
    app = await startTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Service <service@example.com>' } });
  });
  afterAll(async () => {
    await app?.close();
    await new Promise<void>((r) => smtp.close(() => r()));
  });

  it('sends a committed mail once through a queued job and stamps it sent', async () => {
    const mail = app.running.app.get(MailService);
    const db = app.running.app.get(DbService);
    await db.transaction(async () => {
      await mail.send({ to: 'Someone@Example.com', subject: 'Hello', text: 'Body text' });
    });
    await db
      .transaction(async () => {
        await mail.send({ to: 'never@example.com', subject: 'Rolled back', text: 'x' });
        throw new Error('abort');
      })
      .catch(() => undefined);
    const deadline = Date.now() + 20_000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(received).toHaveLength(1);
    expect(received[0]!.to).toEqual(['someone@example.com']);
    expect(received[0]!.raw).toContain('Subject: Hello');
    let row;
    while (Date.now() < deadline) {
      [row] = rowsOf(await db.root.execute(sql`select sent_at, attempts from mail_outbox where "to" = 'someone@example.com'`));
      if (row.sent_at) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(row.sent_at).toBeTruthy();
    expect(row.attempts).toBe(1);
    expect(rowsOf(await db.root.execute(sql`select 1 from mail_outbox where "to" = 'never@example.com'`))).toHaveLength(0);
  });

  it('erases a mail that carried a sign-in code once it is sent: the row keeps neither the code nor the body', async () => {
    const db = app.running.app.get(DbService);
    const email = 'client@acme.demo.invalid';
    expect((await app.post('/api/auth/request-otp', { email })).status).toBe(204);
    const deadline = Date.now() + 20_000;
    let row: any;
    while (Date.now() < deadline) {
      [row] = rowsOf(await db.root.execute(sql`select subject, text, html, sent_at, erased_at, sensitive from mail_outbox where "to" = ${email} order by created_at desc limit 1`));
      if (row?.sent_at) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const delivered = received.find((m) => m.to.includes(email));
    const code = /\b(\d{6})\b/.exec(delivered!.raw)![1]!;
    expect(row).toMatchObject({ sensitive: true, text: '', html: null, sent_at: expect.anything(), erased_at: expect.anything() });
    expect(row.subject).not.toContain(code);
    expect(row.subject).toBe('Your sign-in code: ******');
    expect(JSON.stringify(rowsOf(await db.root.execute(sql`select * from mail_outbox where "to" = ${email}`)))).not.toContain(code);
    // The code still signs in: erasing the mail takes nothing from the person it was sent to.
    expect((await app.post('/api/auth/verify-otp', { email, code })).status).toBe(200);
    // A mail without a secret keeps its body after sending.
    const [plain] = rowsOf(await db.root.execute(sql`select text, erased_at from mail_outbox where "to" = 'someone@example.com'`));
    expect(plain).toEqual({ text: 'Body text', erased_at: null });
  });
});

describe('users', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('refuses to assign the legacy client roles and duplicate emails (any case)', async () => {
    const users = app.running.app.get(UsersService);
    await expect(users.create({ email: 'legacy@example.com', platformRole: 'client_admin' })).rejects.toThrow(/cannot be assigned/);
    await expect(users.create({ email: 'legacy@example.com', platformRole: 'client_member' })).rejects.toThrow(/cannot be assigned/);
    await users.create({ email: 'Mixed@Example.com', platformRole: 'expert' });
    await expect(users.create({ email: 'mixed@example.COM', platformRole: 'expert' })).rejects.toThrow(/Email already in use/);
    expect((await users.findByEmail('MIXED@example.com'))?.email).toBe('mixed@example.com');
  });

  it('stores argon2id hashes, never the password', async () => {
    const users = app.running.app.get(UsersService);
    const row = await users.create({ email: 'hash@example.com', platformRole: 'expert', password: 'plain text pw' });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await users.checkPassword(row, 'plain text pw')).toBe(true);
    expect(await users.checkPassword(row, 'other')).toBe(false);
    expect(await users.checkPassword(undefined, 'plain text pw')).toBe(false);
  });
});
