import { Injectable } from '@nestjs/common';
import { hash, verify } from '@node-rs/argon2';
import { ASSIGNABLE_PLATFORM_ROLES, type OrgRole, type PlatformRole, type UserStatus } from '../../contracts/roles.js';
import type { PrincipalLoader, PrincipalRecord } from '../../platform/auth/principal.js';
import { AppError } from '../../platform/errors/app-error.js';
import { UsersRepository, type MembershipRecord } from './users.repository.js';
import type { UserRow } from './users.tables.js';

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
export class UsersService implements PrincipalLoader {
  constructor(private readonly repo: UsersRepository) {}

  /** PrincipalLoader port of the auth layer: the user's current state, memberships included. */
  async load(userId: string): Promise<PrincipalRecord | null> {
    const row = await this.repo.findWithMemberships(userId);
    if (!row) return null;
    return {
      id: row.id,
      email: row.email,
      name: row.name,
      platformRole: row.platformRole,
      status: row.status,
      passwordChangedAt: row.passwordChangedAt,
      totpEnabled: row.totpEnabled,
      createdAt: row.createdAt,
      orgMemberships: row.memberships,
    };
  }

  findById(id: string): Promise<UserRow | undefined> {
    return this.repo.findById(id);
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.repo.findByEmail(email);
  }

  listByRole(role: PlatformRole): Promise<UserRow[]> {
    return this.repo.listByRole(role);
  }

  memberships(userId: string): Promise<MembershipRecord[]> {
    return this.repo.memberships(userId);
  }

  async create(input: CreateUserInput): Promise<UserRow> {
    if (!(ASSIGNABLE_PLATFORM_ROLES as readonly string[]).includes(input.platformRole)) {
      throw AppError.badRequest(`The role ${input.platformRole} cannot be assigned`);
    }
    if (await this.repo.findByEmail(input.email)) throw AppError.conflict('Email already in use');
    return this.repo.insert({
      email: input.email,
      name: input.name ?? '',
      platformRole: input.platformRole,
      passwordHash: input.password ? await hash(input.password, ARGON2) : null,
      passwordChangedAt: new Date(),
    });
  }

  async addMembership(orgId: string, userId: string, orgRole: OrgRole): Promise<void> {
    await this.repo.upsertMembership(orgId, userId, orgRole);
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
    const row = await this.repo.update(userId, { passwordHash: await hash(password, ARGON2), passwordChangedAt: new Date() });
    if (!row) throw AppError.notFound('User');
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
    const row = await this.repo.update(userId, status === 'active' ? { status } : { status, passwordChangedAt: new Date() });
    if (!row) throw AppError.notFound('User');
    return row;
  }

  async recordLogin(userId: string): Promise<void> {
    await this.repo.update(userId, { lastLoginAt: new Date() });
  }

  countSuperadmins(opts: { activeOnly?: boolean } = {}): Promise<number> {
    return this.repo.countByRole('superadmin', opts);
  }
}
