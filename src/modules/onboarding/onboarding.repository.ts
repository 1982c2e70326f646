import { Injectable } from '@nestjs/common';
import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import { DbService } from '../../platform/db/db.service.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { orgInvites, type OrgInviteRow } from './onboarding.tables.js';

@Injectable()
export class InvitesRepository {
  constructor(private readonly dbService: DbService) {}

  private get db() {
    return this.dbService.db;
  }

  async findByOrg(scope: OrgScope): Promise<OrgInviteRow | undefined> {
    const [row] = await this.db.select().from(orgInvites).where(inOrg(orgInvites.orgId, scope));
    return row;
  }

  /** The invite of a secret token, in any org: the token names its org. */
  async unscopedFindByTokenHash(tokenHash: string): Promise<OrgInviteRow | undefined> {
    const [row] = await this.db.select().from(orgInvites).where(eq(orgInvites.tokenHash, tokenHash));
    return row;
  }

  /** Creates the org's invite unless it exists (one per org); returns the stored one. */
  async ensure(scope: OrgScope, values: { tokenSealed: string; tokenHash: string }): Promise<OrgInviteRow> {
    await this.db
      .insert(orgInvites)
      .values({ ...values, orgId: scope.orgId })
      .onConflictDoNothing({ target: orgInvites.orgId });
    return (await this.findByOrg(scope))!;
  }

  async update(scope: OrgScope, id: string, values: Partial<Omit<typeof orgInvites.$inferInsert, 'orgId'>>): Promise<OrgInviteRow> {
    const [row] = await this.db
      .update(orgInvites)
      .set(values)
      .where(and(inOrg(orgInvites.orgId, scope), eq(orgInvites.id, id)))
      .returning();
    return row!;
  }

  /** Marks the onboarding code as used; false when it already was (single use). */
  async markOtpUsed(scope: OrgScope, id: string, at: Date): Promise<boolean> {
    const rows = await this.db
      .update(orgInvites)
      .set({ otpUsedAt: at })
      .where(and(inOrg(orgInvites.orgId, scope), eq(orgInvites.id, id), isNull(orgInvites.otpUsedAt)))
      .returning({ id: orgInvites.id });
    return rows.length === 1;
  }

  /** Counts one onboarding-code guess unless `max` are spent (parallel guesses included): the count after, or undefined. */
  async takeOtpAttempt(scope: OrgScope, id: string, max: number): Promise<number | undefined> {
    const [row] = await this.db
      .update(orgInvites)
      .set({ otpFailedAttempts: sql`${orgInvites.otpFailedAttempts} + 1` })
      .where(and(inOrg(orgInvites.orgId, scope), eq(orgInvites.id, id), lt(orgInvites.otpFailedAttempts, max)))
      .returning({ attempts: orgInvites.otpFailedAttempts });
    return row?.attempts;
  }

  /** Gives back the attempt of a right guess. */
  async returnOtpAttempt(scope: OrgScope, id: string): Promise<void> {
    await this.db
      .update(orgInvites)
      .set({ otpFailedAttempts: sql`greatest(${orgInvites.otpFailedAttempts} - 1, 0)` })
      .where(and(inOrg(orgInvites.orgId, scope), eq(orgInvites.id, id)));
  }

  async markCompleted(scope: OrgScope, id: string, at: Date): Promise<boolean> {
    const rows = await this.db
      .update(orgInvites)
      .set({ completedAt: at })
      .where(and(inOrg(orgInvites.orgId, scope), eq(orgInvites.id, id), isNull(orgInvites.completedAt)))
      .returning({ id: orgInvites.id });
    return rows.length === 1;
  }
}
