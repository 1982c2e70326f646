import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import type { OrgRole, PlatformRole } from '../../contracts/roles.js';
import { DbService } from '../../platform/db/db.service.js';
import { unscopedOrg } from '../../platform/tenancy/org-scope.js';
import { AppError } from '../../platform/errors/app-error.js';
import { logger } from '../../platform/observability/logger.js';
import { AuthService } from '../auth/index.js';
import { ExpertsService } from '../experts/index.js';
import { OrgsService } from '../orgs/index.js';
import { AssignmentsService, SpecialistsService } from '../specialists/index.js';
import { UsersService } from '../users/index.js';
import { DEMO_ORG, DEMO_ORG_PRIMARY_SPECIALIST, DEMO_PASSWORD, DEMO_SPECIALISTS, DEMO_USERS } from './demo.data.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { DemoLife } from './demo.life.js';
import { demoPrincipal } from './demo.principal.js';

const DEMO_SEED_LOCK = 7_410_225;

export type DemoRole = 'superadmin' | 'account_manager' | 'expert' | 'ai_operator' | 'client' | 'org_admin';

const DEMO_ROLE_MAP: Record<DemoRole, { platformRole: PlatformRole; orgRole?: OrgRole; label: string }> = {
  superadmin: { platformRole: 'superadmin', label: 'Superadmin' },
  account_manager: { platformRole: 'account_manager', label: 'Account Manager' },
  expert: { platformRole: 'expert', label: 'Expert' },
  ai_operator: { platformRole: 'ai_operator', label: 'AI Operator' },
  client: { platformRole: 'org_member', orgRole: 'member', label: 'Client' },
  org_admin: { platformRole: 'org_admin', orgRole: 'owner', label: 'Org Admin' },
};

/** Demo data and demo sign-in; never reachable in production. */
@Injectable()
export class DemoService {
  constructor(
    private readonly dbService: DbService,
    private readonly users: UsersService,
    private readonly orgs: OrgsService,
    private readonly specialists: SpecialistsService,
    private readonly auth: AuthService,
    private readonly experts: ExpertsService,
    private readonly assignments: AssignmentsService,
    private readonly life: DemoLife,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Seeds the demo accounts, org and catalog on a database that has no users, then the demo org's
   * activity (DemoLife) while it has no conversation. Idempotent. The activity is left out of the
   * test runs' template (APP_ENV=test, or `activity: false`): their tests start from a quiet org.
   */
  async seedIfEmpty(opts: { activity?: boolean } = {}): Promise<boolean> {
    const seeded = await this.seedAccounts();
    if (opts.activity ?? this.config.env !== 'test') await this.seedActivity();
    return seeded;
  }

  /** The demo org's conversations, Specialists, ledger, invoice and notifications (DemoLife), once. */
  async seedActivity(): Promise<boolean> {
    const org = await this.orgs.findBySlug(DEMO_ORG.slug);
    const ids = await Promise.all(
      ['account_manager@platform.demo.invalid', 'expert@platform.demo.invalid', 'client@acme.demo.invalid', 'org_admin@acme.demo.invalid'].map(
        async (email) => (await this.users.findByEmail(email))?.id,
      ),
    );
    const [amId, expertId, clientId, orgAdminId] = ids;
    if (!org || !amId || !expertId || !clientId || !orgAdminId) return false;
    return this.life.seed({ orgId: org.id, amId, expertId, clientId, orgAdminId });
  }

  private async seedAccounts(): Promise<boolean> {
    if ((await this.users.countSuperadmins()) > 0) return false;
    const seeded = await this.dbService.transaction(async (tx) => {
      // Instances started together on an empty database: one seeds, the others find it done.
      await tx.execute(sql`select pg_advisory_xact_lock(${DEMO_SEED_LOCK})`);
      if ((await this.users.countSuperadmins()) > 0) return undefined;
      const byEmail = new Map<string, string>();
      for (const u of DEMO_USERS) {
        const existing = await this.users.findByEmail(u.email);
        const row = existing ?? (await this.users.create({ email: u.email, name: u.name, platformRole: u.platformRole, password: DEMO_PASSWORD }));
        byEmail.set(u.email, row.id);
      }
      const org = (await this.orgs.findBySlug(DEMO_ORG.slug)) ?? (await this.orgs.create({ ...DEMO_ORG, status: 'active', assignedAmId: byEmail.get('account_manager@platform.demo.invalid') }));
      const demoOrg = unscopedOrg(org.id, 'the demo seed');
      for (const u of DEMO_USERS) {
        if (u.org) await this.users.addMembership(demoOrg, byEmail.get(u.email)!, u.org.orgRole);
      }
      for (const s of DEMO_SPECIALISTS) {
        if (!(await this.specialists.findBySlug(s.slug))) await this.specialists.create(s);
      }
      await this.experts.ensureOrgWideGrant(demoOrg, byEmail.get('expert@platform.demo.invalid')!);
      return { orgId: org.id, amId: byEmail.get('account_manager@platform.demo.invalid')! };
    });
    if (!seeded) return false;
    // The demo org can chat at once: a primary Specialist assigned by its AM (the assignment
    // writes its own audit row, so it runs after the seed's transaction), covered by the demo Expert.
    const scope = unscopedOrg(seeded.orgId, 'the demo seed');
    if (!(await this.assignments.hasAssignment(scope))) {
      const specialist = (await this.specialists.findBySlug(DEMO_ORG_PRIMARY_SPECIALIST))!;
      await this.assignments.assign(await demoPrincipal(this.users, seeded.amId), scope, { specialistId: specialist.id });
    }
    logger.info('demo data seeded');
    return true;
  }

  accounts() {
    return DEMO_USERS.filter((u) => u.email !== 'expert2@platform.demo.invalid').map((u) => ({
      email: u.email,
      password: DEMO_PASSWORD,
      role: u.platformRole,
    }));
  }

  /** API-MAP.md "Auth": finds or creates `<role>@<orgSlug or 'platform'>.demo.invalid`. */
  async demoLogin(role: DemoRole, orgSlug?: string): Promise<{ token: string }> {
    const spec = DEMO_ROLE_MAP[role];
    const org = orgSlug ? await this.orgs.findBySlug(orgSlug) : undefined;
    if (orgSlug && !org) throw AppError.notFound('Organization');
    if (spec.orgRole && !org) throw AppError.notFound('Organization');
    const email = `${role}@${org ? org.slug : 'platform'}.demo.invalid`;
    const user = await this.dbService.transaction(async () => {
      const row = (await this.users.findByEmail(email)) ?? (await this.users.create({ email, name: `Demo ${spec.label}`, platformRole: spec.platformRole }));
      const demoOrg = org && unscopedOrg(org.id, 'a demo login');
      if (demoOrg && spec.orgRole) await this.users.addMembership(demoOrg, row.id, spec.orgRole);
      // API-MAP.md: with an orgSlug the demo Expert gets an org-wide grant, the demo AM becomes the assigned AM.
      if (demoOrg && role === 'expert') await this.experts.ensureOrgWideGrant(demoOrg, row.id);
      if (org && role === 'account_manager') await this.orgs.setAssignedAm(org.id, row.id);
      return row;
    });
    if (user.status !== 'active') throw AppError.unauthorized(`This account is ${user.status}`);
    const session = await this.auth.startSession(user, 'demo');
    return { token: session.token };
  }
}
