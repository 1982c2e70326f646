import 'reflect-metadata';
import { Module, type INestApplicationContext, type Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { Ports } from '../ports/ports.js';
import { CLOSED_ORGS_SOURCE, OrgAccessGate, type ClosedOrgsSource } from './org-access-gate.js';
import type { Principal } from './principal.js';

const OPEN_ORG = '11111111-1111-4111-8111-111111111111';
const CLOSED_ORG = '22222222-2222-4222-8222-222222222222';

function clientOf(...orgIds: string[]): Principal {
  const orgMemberships = orgIds.map((orgId) => ({ orgId, orgRole: 'member' as const }));
  const record = {
    id: 'u1',
    email: 'c@example.com',
    name: 'C',
    platformRole: 'client_member' as const,
    status: 'active' as const,
    passwordChangedAt: new Date(0),
    totpEnabled: false,
    createdAt: new Date(0),
    orgMemberships,
  };
  return { userId: 'u1', email: record.email, name: record.name, platformRole: 'client_member', orgMemberships, issuedAtMs: 0, sessionId: 's1', record };
}

const billingSource: ClosedOrgsSource = {
  closedAmong: async (ids) => new Set(ids.filter((id) => id === CLOSED_ORG)),
  closedAmongSql: (ids) => sql<string[]>`closed_among(${ids})`,
};

/** A statement part as PostgreSQL would be sent it. */
const rendered = (part: SQL) => new PgDialect().sqlToQuery(part).sql;

let context: INestApplicationContext | undefined;

/** The gate as the app builds it: in a Nest container, with or without a module providing its source. */
async function gateWith(source?: ClosedOrgsSource): Promise<OrgAccessGate> {
  const providers: Provider[] = [Ports, OrgAccessGate, ...(source ? [{ provide: CLOSED_ORGS_SOURCE, useValue: source }] : [])];
  @Module({ providers })
  class GateModule {}
  context = await NestFactory.createApplicationContext(GateModule, { logger: false });
  return context.get(OrgAccessGate);
}

async function refusal(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  }
}

afterEach(async () => {
  await context?.close();
  context = undefined;
});

describe('OrgAccessGate (spec 3.6)', () => {
  it('fails closed while no module provides its source: requests and turns are refused with org_suspended', async () => {
    const gate = await gateWith();
    expect(await gate.isOpen(OPEN_ORG)).toBe(false);
    expect(await refusal(gate.assertOpenFor(clientOf(OPEN_ORG), OPEN_ORG))).toBe('org_suspended');
    expect(await refusal(gate.assertOpenFor(clientOf(OPEN_ORG), undefined))).toBe('org_suspended');
  });

  it('fails closed before the container has finished building it', () => {
    const gate = new OrgAccessGate(new Ports(undefined as never));
    return expect(gate.isOpen(OPEN_ORG)).resolves.toBe(false);
  });

  it('follows its source once provided: open orgs pass, closed ones are refused', async () => {
    const gate = await gateWith(billingSource);
    expect(await gate.isOpen(OPEN_ORG)).toBe(true);
    expect(await gate.isOpen(CLOSED_ORG)).toBe(false);
    expect(await refusal(gate.assertOpenFor(clientOf(OPEN_ORG), OPEN_ORG))).toBeUndefined();
    expect(await refusal(gate.assertOpenFor(clientOf(OPEN_ORG, CLOSED_ORG), undefined))).toBe('org_suspended');
    expect(await refusal(gate.assertOpenFor(clientOf(OPEN_ORG, CLOSED_ORG), OPEN_ORG))).toBeUndefined();
  });

  it('decides on the closed orgs read with the caller when the request has them, without asking its source', async () => {
    const gate = await gateWith(billingSource);
    const asked = vi.spyOn(billingSource, 'closedAmong');
    try {
      expect(await refusal(gate.assertOpenFor(clientOf(OPEN_ORG, CLOSED_ORG), undefined, new Set([CLOSED_ORG])))).toBe('org_suspended');
      expect(await refusal(gate.assertOpenFor(clientOf(OPEN_ORG, CLOSED_ORG), OPEN_ORG, new Set([CLOSED_ORG])))).toBeUndefined();
      // What the caller's read found counts, whatever the source would say now.
      expect(await refusal(gate.assertOpenFor(clientOf(OPEN_ORG), OPEN_ORG, new Set([OPEN_ORG])))).toBe('org_suspended');
      const principal = clientOf(OPEN_ORG);
      await gate.assertOpenFor(principal, undefined, new Set());
      expect(principal.openOrgIds).toEqual(new Set([OPEN_ORG]));
      expect(asked).not.toHaveBeenCalled();
    } finally {
      asked.mockRestore();
    }
  });

  it("gives its source's rule as a statement part, and fails closed without a source (every org asked about is closed)", async () => {
    expect(rendered((await gateWith(billingSource)).closedAmongSql(sql`$ids`))).toBe('closed_among($ids)');
    await context?.close();
    expect(rendered((await gateWith()).closedAmongSql(sql`$ids`))).toBe('($ids)::uuid[]');
  });

  it('refuses to give its rule as a statement part before the app has started (a statement would keep "all closed" for good)', () => {
    const gate = new OrgAccessGate(new Ports(undefined as never));
    expect(() => gate.closedAmongSql(sql`$ids`)).toThrow(/before the app started/);
  });
});
