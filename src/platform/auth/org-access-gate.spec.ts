import 'reflect-metadata';
import { Module, type INestApplicationContext, type Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { afterEach, describe, expect, it } from 'vitest';
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

const billingSource: ClosedOrgsSource = { closedAmong: async (ids) => new Set(ids.filter((id) => id === CLOSED_ORG)) };

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
});
