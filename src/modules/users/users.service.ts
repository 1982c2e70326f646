import { Injectable } from '@nestjs/common';
import { hash, verify } from '@node-rs/argon2';
import { ADMIN_MESSAGES } from '../../contracts/admin.js';
import { ASSIGNABLE_PLATFORM_ROLES, isClientRole, type OrgRole, type PlatformRole, type UserStatus } from '../../contracts/roles.js';
import { AccessEvents, type AccessChange } from '../../platform/auth/access-events.js';
import type { PrincipalRecord } from '../../platform/auth/principal.js';
import { Clock, systemNow } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { Keyset } from '../../platform/http/pagination.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';
import { UsersRepository, type MembershipRecord, type OrgMemberRecord, type UserSearch } from './users.repository.js';
import type { UserRow } from './users.tables.js';

export interface UserFieldChanges {
  name?: string;
  email?: string;
  platformRole?: PlatformRole;
  status?: UserStatus;
}

/** drizzle wraps driver errors: the PostgreSQL code is on the cause. */
const pgCode = (err: unknown): string | undefined => (err as { cause?: { code?: string } })?.cause?.code ?? (err as { code?: string })?.code;

// argon2id (the library's default algorithm), OWASP's recommended floor for memory and passes.
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
/** Verifying against this keeps the time of a login for an unknown email the same as for a known one. */
let dummyHash: Promise<string> | undefined;

export interface CreateUserInput {
  email: string;
  name?: string;
  platformRole: PlatformRole;
  password?: string;
}

/** Users and their memberships: the rules (role assignability, password hashing, session revocation). */
@Injectable()
export class UsersService {
  constructor(
    private readonly repo: UsersRepository,
    private readonly dbService: DbService,
    private readonly accessEvents: AccessEvents,
    private readonly clock: Clock,
  ) {}

  /** The user's current state as the auth layer describes a principal, memberships included. */
  async load(userId: string): Promise<PrincipalRecord | null> {
    return (await this.repo.findPrincipal(userId)) ?? null;
  }

  findById(id: string): Promise<UserRow | undefined> {
    return this.repo.findById(id);
  }

  findByIds(ids: string[]): Promise<UserRow[]> {
    return this.repo.findByIds(ids);
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.repo.findByEmail(email);
  }

  listByRole(role: PlatformRole): Promise<UserRow[]> {
    return this.repo.listByRole(role);
  }

  memberships(userId: string): Promise<MembershipRecord[]> {
    return this.repo.unscopedMembershipsOfUser(userId);
  }

  search(filter: UserSearch, page: { limit: number; after?: Keyset }): Promise<UserRow[]> {
    return this.repo.search(filter, page);
  }

  async create(input: CreateUserInput): Promise<UserRow> {
    assertAssignable(input.platformRole);
    if (await this.repo.findByEmail(input.email)) throw AppError.conflict(ADMIN_MESSAGES.emailInUse);
    return this.repo.insert({
      email: input.email,
      name: input.name ?? '',
      platformRole: input.platformRole,
      passwordHash: input.password ? await hash(input.password, ARGON2) : null,
      passwordChangedAt: systemNow(),
    });
  }

  async addMembership(scope: OrgScope, userId: string, orgRole: OrgRole): Promise<void> {
    await this.repo.upsertMembership(scope, userId, orgRole);
    this.announce({ kind: 'reach_changed', userId });
  }

  /** True when the password matches; false for users without a password. Constant work for unknown users. */
  async checkPassword(user: UserRow | undefined, password: string): Promise<boolean> {
    if (!user?.passwordHash) {
      dummyHash ??= hash('not-a-real-password', ARGON2);
      await verify(await dummyHash, password).catch(() => false);
      return false;
    }
    return verify(user.passwordHash, password).catch(() => false);
  }

  /** Sets a password and revokes every token issued before now. */
  async setPassword(userId: string, password: string): Promise<UserRow> {
    const row = await this.repo.update(userId, { passwordHash: await hash(password, ARGON2), passwordChangedAt: systemNow() });
    if (!row) throw AppError.notFound('User');
    this.announce({ kind: 'user_revoked', userId });
    return row;
  }

  /** A name-only edit: sessions stay valid (spec 4.7 rule 4). */
  async setName(userId: string, name: string): Promise<UserRow> {
    const row = await this.repo.update(userId, { name });
    if (!row) throw AppError.notFound('User');
    return row;
  }

  /** Changes a user's status; leaving `active` revokes every session (spec 4.7 rule 4). */
  async setStatus(userId: string, status: UserStatus): Promise<UserRow> {
    const row = await this.repo.update(userId, status === 'active' ? { status } : { status, passwordChangedAt: systemNow() });
    if (!row) throw AppError.notFound('User');
    if (status !== 'active') this.announce({ kind: 'user_revoked', userId });
    return row;
  }

  /**
   * An administrator's edit of name, email, platform role or status. With `revokeSessions`,
   * `passwordChangedAt` moves to now, so every token issued before stops working.
   */
  async applyChanges(userId: string, changes: UserFieldChanges, opts: { revokeSessions: boolean }): Promise<UserRow> {
    if (changes.platformRole) assertAssignable(changes.platformRole);
    if (changes.email !== undefined) {
      const holder = await this.repo.findByEmail(changes.email);
      if (holder && holder.id !== userId) throw emailInUse();
    }
    try {
      const row = await this.repo.update(userId, { ...changes, ...(opts.revokeSessions ? { passwordChangedAt: systemNow() } : {}) });
      if (!row) throw AppError.notFound('User');
      if (opts.revokeSessions) this.announce({ kind: 'user_revoked', userId });
      return row;
    } catch (err) {
      if (pgCode(err) === '23505') throw emailInUse();
      throw err;
    }
  }

  /**
   * Removes a user by anonymising the row (history that points at it stays): no email, name,
   * password or second factor any more, deactivated, out of every org, every session ended.
   */
  async anonymise(userId: string): Promise<UserRow> {
    await this.repo.unscopedRemoveMembershipsOfUser(userId);
    const row = await this.repo.update(userId, {
      email: `removed-${userId}@removed.invalid`,
      name: '',
      status: 'deactivated',
      passwordHash: null,
      totpSecretEnc: null,
      totpEnabled: false,
      totpLastStep: null,
      removedAt: this.clock.now(),
      passwordChangedAt: systemNow(),
    });
    if (!row) throw AppError.notFound('User');
    this.announce({ kind: 'user_revoked', userId });
    return row;
  }

  /** Deletes the row; refused (409) while other records still point at the user. */
  async hardDelete(userId: string): Promise<void> {
    try {
      if (!(await this.repo.delete(userId))) throw AppError.notFound('User');
      this.announce({ kind: 'user_revoked', userId });
    } catch (err) {
      if (pgCode(err) === '23503') throw AppError.conflict('Other records still refer to this user: remove without hard=true to anonymise instead');
      throw err;
    }
  }

  /** Turns two-factor sign-in on or off; a new (sealed) secret starts with no used time step. */
  async setTotp(userId: string, totp: { enabled: boolean; secretEnc?: string | null }): Promise<void> {
    const secret = totp.secretEnc === undefined ? {} : { totpSecretEnc: totp.secretEnc, totpLastStep: null };
    await this.repo.update(userId, { totpEnabled: totp.enabled, ...secret });
  }

  /** Remembers the time step of an accepted TOTP code; false when that step (or a later one) was already used. */
  async acceptTotpStep(userId: string, step: number): Promise<boolean> {
    return this.repo.advanceTotpStep(userId, step);
  }

  // Org members (spec 4.6)

  membership(scope: OrgScope, userId: string): Promise<MembershipRecord | undefined> {
    return this.repo.membership(scope, userId);
  }

  /** Oldest membership first (joined, then membership id); with a page, keyset-paginated (limit + 1 rows). */
  membersOfOrg(scope: OrgScope, page?: { limit: number; after?: Keyset }): Promise<OrgMemberRecord[]> {
    return this.repo.membersOfOrg(scope, page);
  }

  lockMemberships(scope: OrgScope): Promise<void> {
    return this.repo.lockMemberships(scope);
  }

  countOwners(scope: OrgScope): Promise<number> {
    return this.repo.countOwners(scope);
  }

  orgsSolelyOwnedBy(userId: string): Promise<string[]> {
    return this.repo.unscopedOrgsSolelyOwnedBy(userId);
  }

  async setOrgRole(scope: OrgScope, userId: string, orgRole: OrgRole): Promise<void> {
    if (!(await this.repo.setMembershipRole(scope, userId, orgRole))) throw AppError.notFound('Member');
    await this.syncClientRole(userId);
    this.announce({ kind: 'reach_changed', userId });
  }

  async removeMembership(scope: OrgScope, userId: string): Promise<void> {
    if (!(await this.repo.removeMembership(scope, userId))) throw AppError.notFound('Member');
    await this.syncClientRole(userId);
    this.announce({ kind: 'reach_changed', userId });
  }

  /**
   * A client user's platform role follows their org roles: org_admin while they are an owner or
   * admin of some org, else org_member. Internal users keep theirs; legacy roles are never assigned.
   */
  async syncClientRole(userId: string): Promise<void> {
    const user = await this.repo.findById(userId);
    if (!user || !isClientRole(user.platformRole)) return;
    const role = clientRoleFor((await this.repo.unscopedMembershipsOfUser(userId)).map((m) => m.orgRole));
    if (role !== user.platformRole) await this.repo.update(userId, { platformRole: role });
  }

  /** Members of an org holding one of these org roles (billing notifications, spec 3.6). */
  async memberIdsWithRoles(scope: OrgScope, roles: readonly OrgRole[]): Promise<string[]> {
    return this.repo.memberIdsWithRoles(scope, roles);
  }

  async recordLogin(userId: string): Promise<void> {
    await this.repo.update(userId, { lastLoginAt: this.clock.now() });
  }

  /** Superadmins, optionally only active ones and without one user (the target of an edit). */
  countSuperadmins(opts: { activeOnly?: boolean; excludeId?: string } = {}): Promise<number> {
    return this.repo.countByRole('superadmin', opts);
  }

  /** Open sockets follow the change once it has committed (the transaction's, when one is open). */
  private announce(change: AccessChange): void {
    this.dbService.afterCommit(() => this.accessEvents.emit(change));
  }
}

/** The platform role of a client user with these org roles: org_admin while an owner or admin of some org. */
export function clientRoleFor(orgRoles: readonly OrgRole[]): PlatformRole {
  return orgRoles.some((r) => r === 'owner' || r === 'admin') ? 'org_admin' : 'org_member';
}

function assertAssignable(role: PlatformRole): void {
  if (!(ASSIGNABLE_PLATFORM_ROLES as readonly string[]).includes(role)) throw AppError.badRequest(`The role ${role} cannot be assigned`);
}

function emailInUse(): AppError {
  return AppError.conflict(ADMIN_MESSAGES.emailInUse, { field: 'email' });
}
