import { randomBytes } from 'node:crypto';
import type { Type } from '@nestjs/common';
import type { OsaDto } from '../../src/contracts/assignments.js';
import type { ConversationDto, MessageDto, SentMessageDto } from '../../src/contracts/conversations.js';
import type { GrantDto } from '../../src/contracts/experts.js';
import type { OrgRole, PlatformRole } from '../../src/contracts/roles.js';
import { ConversationsService } from '../../src/modules/conversations/index.js';
import { ExpertsService } from '../../src/modules/experts/index.js';
import { OrgsService, type OrgRow } from '../../src/modules/orgs/index.js';
import { AssignmentsService, SpecialistsService, type NewSpecialist, type SpecialistRow } from '../../src/modules/specialists/index.js';
import { UsersService, type UserRow } from '../../src/modules/users/index.js';
import { INTERNAL_SESSION_ID, type Principal } from '../../src/platform/auth/principal.js';
import { requestScope, unscopedOrg } from '../../src/platform/tenancy/org-scope.js';
import { rows, type RowSource } from './rows.js';
import { startTestApp, type TestApp } from './test-app.js';

const unique = () => randomBytes(4).toString('hex');

type Where = Record<string, unknown>;
/** A conversation as its creator sees it, and who created it. */
type Conversation = ConversationDto & { messages: MessageDto[]; createdBy: string };

/**
 * Factories that make each row through the service that owns it, on a booted app. A test says
 * only what matters to it; every other field gets a valid unique default.
 */
export interface Factories {
  app: TestApp;
  /** A service or repository of the booted app. */
  get<T>(type: Type<T>): T;
  /** Rows as stored: `rows('orgs', { slug })`, or any query (see rows.ts). */
  rows<T = Record<string, unknown>>(table: string, where?: Where): Promise<T[]>;
  /** The caller a service method takes, for a user as stored now (memberships included). */
  principal(user: { id: string }): Promise<Principal>;
  newUser(input?: { platformRole?: PlatformRole; email?: string; name?: string; password?: string }): Promise<UserRow>;
  /** An active org (or `status`), with an account manager made for it unless given. */
  newOrg(input?: Partial<Omit<OrgRow, 'id' | 'status'>> & { status?: 'pending_am_setup' | 'active' }): Promise<OrgRow>;
  /** A user of the org (`member` unless `orgRole` says otherwise). */
  newMember(org: { id: string }, input?: { orgRole?: OrgRole; email?: string }): Promise<UserRow>;
  newSpecialist(input?: Partial<NewSpecialist>): Promise<SpecialistRow>;
  /** A Specialist assigned to the org by its account manager (a new Specialist unless given). */
  newSpecialistAssignment(org: OrgRow, input?: { specialist?: { id: string }; monthlyRate?: number; currency?: string }): Promise<OsaDto>;
  /** A grant of an expert (made unless given) on the org: org-wide unless `specialistIds`. */
  newGrant(org: { id: string }, input?: { expert?: { id: string }; specialistIds?: string[] }): Promise<GrantDto>;
  /** A conversation a member of the org opens (on its primary assignment unless given), with a first message when `message`. */
  newConversation(org: OrgRow, input?: { author?: { id: string }; assignment?: { id: string }; subject?: string; message?: string }): Promise<Conversation>;
  /** A message sent in the conversation by `author` (its creator unless given), answered by the Specialist when a client sends it. */
  newMessage(conversation: { id: string; createdBy: string }, input?: { author?: { id: string }; content?: string; isInternal?: boolean }): Promise<SentMessageDto>;
}

/**
 * The middle tier: the real services and repositories of a booted service on a real database
 * (PGlite, or PostgreSQL when the run has DATABASE_URL), empty but migrated, with its factories.
 */
export interface Medium extends Factories {
  close(): Promise<void>;
}

export async function startMedium(options: { env?: Record<string, string | undefined> } = {}): Promise<Medium> {
  const app = await startTestApp({ seeded: false, env: options.env });
  return { ...factoriesOf(app), close: () => app.close() };
}

/** The factories on an app already booted (an e2e test's, seeded or not). */
export function factoriesOf(app: TestApp): Factories {
  const get = <T>(type: Type<T>): T => app.running.app.get(type, { strict: false });
  const users = get(UsersService);
  const db: RowSource = app.running.dbService;

  const principal = async (user: { id: string }): Promise<Principal> => {
    const record = await users.load(user.id);
    if (!record) throw new Error(`no user ${user.id}`);
    return {
      userId: record.id,
      email: record.email,
      name: record.name,
      platformRole: record.platformRole,
      orgMemberships: record.orgMemberships,
      issuedAtMs: Date.now(),
      sessionId: INTERNAL_SESSION_ID,
      record,
    };
  };
  const newUser: Factories['newUser'] = (input = {}) => {
    const id = unique();
    return users.create({ platformRole: input.platformRole ?? 'org_member', email: input.email ?? `user-${id}@medium.example.com`, name: input.name ?? `User ${id}`, password: input.password });
  };
  const newSpecialist: Factories['newSpecialist'] = (input = {}) => {
    const id = unique();
    return get(SpecialistsService).create({
      name: `Specialist ${id}`,
      slug: `specialist-${id}`,
      skillTags: [],
      persona: 'A helpful Specialist.',
      monthlyRateConfig: { base_rate: 1000, currency: 'USD' },
      ...input,
    });
  };
  const accountManagerOf = async (org: OrgRow) => {
    if (!org.assignedAmId) throw new Error(`org ${org.slug} has no account manager`);
    return principal({ id: org.assignedAmId });
  };
  const clientOf = async (orgId: string, author?: { id: string }) => {
    if (author) return principal(author);
    const [member] = await rows<{ user_id: string }>(db, 'org_memberships', { org_id: orgId });
    return principal(member ? { id: member.user_id } : await factories.newMember({ id: orgId }));
  };

  const factories: Factories = {
    app,
    get,
    rows: (table, where) => rows(db, table, where),
    principal,
    newUser,
    async newOrg(input = {}) {
      const id = unique();
      const am = input.assignedAmId ?? (await newUser({ platformRole: 'account_manager' })).id;
      return get(OrgsService).create({
        legalName: `Org ${id}`,
        slug: `org-${id}`,
        industry: 'technology',
        corporateDomains: [`org-${id}.example.com`],
        adminEmail: `admin@org-${id}.example.com`,
        website: `https://org-${id}.example.com`,
        timezone: 'Europe/Paris',
        status: 'active',
        ...input,
        assignedAmId: am,
      });
    },
    async newMember(org, input = {}) {
      const orgRole = input.orgRole ?? 'member';
      const user = await newUser({ platformRole: orgRole === 'owner' || orgRole === 'admin' ? 'org_admin' : 'org_member', email: input.email });
      await users.addMembership(unscopedOrg(org.id, 'test setup'), user.id, orgRole);
      return user;
    },
    newSpecialist,
    async newSpecialistAssignment(org, input = {}) {
      const specialist = input.specialist ?? (await newSpecialist());
      const rate = input.monthlyRate === undefined ? {} : { monthlyRate: input.monthlyRate, currency: input.currency ?? 'USD' };
      return get(AssignmentsService).assign(await accountManagerOf(org), requestScope(org.id, 'org_wide_role'), { specialistId: specialist.id, ...rate });
    },
    async newGrant(org, input = {}) {
      const expert = input.expert ?? (await newUser({ platformRole: 'expert' }));
      const [row] = await rows<{ assigned_am_id: string }>(db, 'orgs', { id: org.id });
      const am = await principal({ id: row!.assigned_am_id });
      const scope = input.specialistIds ? { scope: 'specialist' as const, specialistIds: input.specialistIds } : { scope: 'org' as const };
      // The factory stands in for the AM's org route, whose guard checks the org-wide role.
      return get(ExpertsService).grant(am, requestScope(org.id, 'org_wide_role'), { expertId: expert.id, ...scope });
    },
    async newConversation(org, input = {}) {
      const author = await clientOf(org.id, input.author);
      const created = await get(ConversationsService).create(author, { orgId: org.id, assignmentId: input.assignment?.id, subject: input.subject, message: input.message });
      return { ...created, createdBy: author.userId };
    },
    async newMessage(conversation, input = {}) {
      const author = await principal(input.author ?? { id: conversation.createdBy });
      return get(ConversationsService).send(author, conversation.id, { content: input.content ?? `Message ${unique()}`, isInternal: input.isInternal });
    },
  };
  return factories;
}
