import { OrgsService } from '../../src/modules/orgs/index.js';
import type { TestApp } from './test-app.js';

const PASSWORD = 'demo1234';

export type DemoCast = Awaited<ReturnType<typeof demoCast>>;

/**
 * The seeded demo cast around the demo org `acme` (its id and tokens), plus a second org `hooli`
 * created through the AM wizard (step 1) with its demo owner: the "org B" of cross-org tests.
 */
export async function demoCast(app: TestApp) {
  const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
  const hooli = await app.post(
    '/api/am/orgs',
    {
      legalName: 'Hooli',
      slug: 'hooli',
      industry: 'technology',
      corporateDomains: ['hooli.example.com'],
      adminEmail: 'gavin@hooli.example.com',
      website: 'https://hooli.example.com',
      timezone: 'America/Los_Angeles',
    },
    { token: am },
  );
  if (hooli.status !== 201) throw new Error(`creating the second org failed: ${hooli.status} ${JSON.stringify(hooli.body)}`);
  return {
    acmeId: (await app.running.app.get(OrgsService).findBySlug('acme'))!.id,
    hooliId: hooli.body.id as string,
    am,
    superadmin: await app.login('superadmin@platform.demo.invalid', PASSWORD),
    owner: await app.login('org_admin@acme.demo.invalid', PASSWORD),
    member: await app.login('client@acme.demo.invalid', PASSWORD),
    aiOperator: await app.demoLogin('ai_operator'),
    hooliOwner: await app.demoLogin('org_admin', 'hooli'),
  };
}

/**
 * A second active org, `globex`, made through the AM wizard with one OSA per given Specialist at
 * an override rate, then finished (active at once, no trial): billing starts today.
 */
export async function activeGlobex(app: TestApp, amToken: string, osas: Array<{ specialistId: string; monthlyRate: number }>) {
  const org = await app.post(
    '/api/am/orgs',
    {
      legalName: 'Globex',
      slug: 'globex',
      industry: 'technology',
      corporateDomains: ['globex.example.com'],
      adminEmail: 'hank@globex.example.com',
      website: 'https://globex.example.com',
      timezone: 'UTC',
    },
    { token: amToken },
  );
  if (org.status !== 201) throw new Error(`creating globex failed: ${org.status} ${JSON.stringify(org.body)}`);
  const assigned: Array<{ id: string; specialistId: string }> = [];
  for (const { specialistId, monthlyRate } of osas) {
    const res = await app.post(`/api/am/orgs/${org.body.id}/specialist`, { specialistId, monthlyRate, overrideReason: 'launch price' }, { token: amToken });
    if (res.status !== 201) throw new Error(`assigning ${specialistId} failed: ${res.status} ${JSON.stringify(res.body)}`);
    assigned.push({ id: res.body.id as string, specialistId });
  }
  const finished = await app.post(`/api/am/orgs/${org.body.id}/finish`, undefined, { token: amToken });
  if (finished.status !== 200) throw new Error(`finishing globex failed: ${finished.status} ${JSON.stringify(finished.body)}`);
  return { id: org.body.id as string, osas: assigned };
}
