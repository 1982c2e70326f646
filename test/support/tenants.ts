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
    { legalName: 'Hooli', slug: 'hooli', industry: 'technology', corporateDomains: ['hooli.example.com'], adminEmail: 'gavin@hooli.example.com', website: 'https://hooli.example.com', timezone: 'America/Los_Angeles' },
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
