import { Injectable } from '@nestjs/common';
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { Clock } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { orgMemberInvitations, type OrgMemberInvitationRow } from './admin.tables.js';

type NewInvitation = Omit<typeof orgMemberInvitations.$inferInsert, 'id' | 'orgId' | 'acceptedAt' | 'createdAt'>;

/** Invitations of existing users to an org; queries only. */
@Injectable()
export class OrgMemberInvitationsRepository {
  constructor(
    private readonly dbService: DbService,
    private readonly clock: Clock,
  ) {}

  private get db() {
    return this.dbService.db;
  }

  async find(scope: OrgScope, userId: string): Promise<OrgMemberInvitationRow | undefined> {
    const [row] = await this.db
      .select()
      .from(orgMemberInvitations)
      .where(and(inOrg(orgMemberInvitations.orgId, scope), eq(orgMemberInvitations.userId, userId)));
    return row;
  }

  /** The invitation of one org and user, new or replacing the earlier one (its token stops working). */
  async put(scope: OrgScope, values: NewInvitation): Promise<OrgMemberInvitationRow> {
    const [row] = await this.db
      .insert(orgMemberInvitations)
      .values({ ...values, orgId: scope.orgId })
      .onConflictDoUpdate({
        target: [orgMemberInvitations.orgId, orgMemberInvitations.userId],
        set: { email: values.email, orgRole: values.orgRole, invitedBy: values.invitedBy, tokenHash: values.tokenHash, expiresAt: values.expiresAt, acceptedAt: null, createdAt: this.clock.now() },
      })
      .returning();
    return row!;
  }

  /** The invitation whose token hash is one of these (the token's hash under each key in use), in any org: the token names its org. */
  async unscopedFindByTokenHash(hashes: string[]): Promise<OrgMemberInvitationRow | undefined> {
    const [row] = await this.db.select().from(orgMemberInvitations).where(inArray(orgMemberInvitations.tokenHash, hashes));
    return row;
  }

  /** Marks the invitation accepted; false when it already was (a token works once). */
  async markAccepted(scope: OrgScope, id: string, at: Date): Promise<boolean> {
    const rows = await this.db
      .update(orgMemberInvitations)
      .set({ acceptedAt: at })
      .where(and(inOrg(orgMemberInvitations.orgId, scope), eq(orgMemberInvitations.id, id), isNull(orgMemberInvitations.acceptedAt)))
      .returning({ id: orgMemberInvitations.id });
    return rows.length === 1;
  }
}
