import { createHmac } from 'node:crypto';
import { SignJWT, generateKeyPair, importPKCS8 } from 'jose';
import { SessionsService } from '../../src/modules/auth/index.js';
import { ArtifactsService } from '../../src/modules/conversations/index.js';
import { invoices } from '../../src/modules/billing/billing.tables.js';
import { UsersService } from '../../src/modules/users/index.js';
import { TokenService } from '../../src/platform/auth/token.service.js';
import { rawRequest } from './http.js';
import { multipartFile, png } from './images.js';
import { demoCast } from './tenants.js';
import { verifyIntegration } from './webhooks.js';
import type { TestApp } from './test-app.js';
import { unscopedOrg } from '../../src/platform/tenancy/org-scope.js';

const PASSWORD = 'demo1234';

/** The roles of org A's callers: platform roles, and the org roles of org A's own users. */
export const ROLES = ['superadmin', 'account_manager', 'expert', 'ai_operator', 'owner', 'admin', 'member', 'billing'] as const;
export type Role = (typeof ROLES)[number];

/** Org B's callers, each standing for the role of org A it mirrors. */
export const OTHER_ORG_CALLERS = { hooliOwner: 'owner', hooliMember: 'member', hooliExpert: 'expert' } as const satisfies Record<string, Role>;
export type OtherOrgCaller = keyof typeof OTHER_ORG_CALLERS;

/**
 * Requests that must never authenticate: no token, malformed, forged, expired, revoked, signed out;
 * and tokens signed with the service's own key that break its rules (over 7 days, issued ahead, no session).
 */
export const UNAUTHENTICATED = ['none', 'malformed', 'basicScheme', 'foreignKey', 'algNone', 'hmacWithPublicKey', 'expired', 'revoked', 'loggedOut', 'overlong', 'issuedAhead', 'sessionless'] as const;
export type Unauthenticated = (typeof UNAUTHENTICATED)[number];

/** The things a route's parameters and bodies can name. Tenant refs are org A's rows. */
export const TENANT_REFS = [
  'org',
  'assignment',
  'spareSpecialist',
  'conversation',
  'artifact',
  'clientMessage',
  'reply',
  'brief',
  'integration',
  'notification',
  'invoice',
  'grant',
  'memberVictim',
  'inviteToken',
  'memberInvitation',
] as const;
export const PLATFORM_REFS = ['catalogSpecialist', 'adminTarget', 'toolName'] as const;
export type Ref = (typeof TENANT_REFS)[number] | (typeof PLATFORM_REFS)[number];

export interface RouteFixtures {
  acmeId: string;
  hooliId: string;
  /** Bearer tokens of org A's callers and org B's callers. */
  tokens: Record<Role | OtherOrgCaller, string>;
  /** A token of a new session of the same caller, for a route that ends the caller's session. */
  freshToken(who: Role | OtherOrgCaller): Promise<string>;
  /** Authorization headers that must be refused (`none`: no header). */
  unauthenticated: Record<Unauthenticated, Record<string, string>>;
  refs: Record<Ref, string>;
  users: { owner: string; member: string; expert: string; expert3: string; hooliOwner: string };
  /** Catalog Specialists: assigned to org A (primary), and one free to assign. */
  specialists: { primary: string; free: string };
  /** A word that only org A's messages, brief and notification contain. */
  marker: string;
  /** The webhook secret of org A's messaging-b integration (verified). */
  webhookSecret: string;
  /** Every id and word of org A that org B must never read. */
  orgASecrets: string[];
  /** A fresh suffix for names that must be unique (slugs, emails). */
  unique(prefix: string): string;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Two orgs with data, and a caller of every role: org A is the seeded `acme` (with an admin, a
 * billing member, an assignment, a conversation with a reply on the attention list and an
 * artifact, a logo, a brief, an
 * integration with secrets, a notification, an invoice, a spare grant, assignment and member);
 * org B is `hooli` (an owner, a member, an Expert whose grants cover org B only, its own
 * assignment and conversation). Built through the API where the API can, for the matrix and the
 * fuzzer of test/e2e.
 */
export async function routeFixtures(app: TestApp): Promise<RouteFixtures> {
  const cast = await demoCast(app);
  const users = app.running.app.get(UsersService);
  const marker = `zebraquartz${Date.now().toString(36)}`;
  /** The messaging-b webhook secret of org A's integration (at least 32 characters). */
  const webhookSecret = `whs-${marker}-0123456789abcdef`;
  let seq = 0;
  const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;
  const ok = <T>(res: { status: number; body: T }, what: string): T => {
    if (res.status >= 300) throw new Error(`fixture ${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const userIn = async (email: string, platformRole: 'org_admin' | 'org_member' | 'expert', orgRole?: 'admin' | 'member' | 'billing') => {
    const user = await users.create({ email, name: `Matrix ${email.split('@')[0]}`, platformRole, password: PASSWORD });
    if (orgRole) await users.addMembership(unscopedOrg(cast.acmeId, 'test setup'), user.id, orgRole);
    return user.id;
  };

  // Org A's extra members and the users that destructive routes act on.
  const adminId = await userIn('admin@acme.matrix.invalid', 'org_admin', 'admin');
  const billingId = await userIn('billing@acme.matrix.invalid', 'org_member', 'billing');
  const memberVictim = await userIn('victim@acme.matrix.invalid', 'org_member', 'member');
  const revokedId = await userIn('revoked@acme.matrix.invalid', 'org_member', 'member');
  const adminTarget = await userIn('target@platform.matrix.invalid', 'org_member');
  const expert3 = await userIn('expert3@platform.matrix.invalid', 'expert');

  const expert = await app.login('expert@platform.demo.invalid', PASSWORD);
  const hooliExpert = await app.login('expert2@platform.demo.invalid', PASSWORD);
  const tokens: RouteFixtures['tokens'] = {
    superadmin: cast.superadmin,
    account_manager: cast.am,
    expert,
    ai_operator: cast.aiOperator,
    owner: cast.owner,
    admin: await app.login('admin@acme.matrix.invalid', PASSWORD),
    member: cast.member,
    billing: await app.login('billing@acme.matrix.invalid', PASSWORD),
    hooliOwner: cast.hooliOwner,
    hooliMember: await app.demoLogin('client', 'hooli'),
    hooliExpert,
  };
  const me = async (token: string) => ok(await app.get<{ id: string }>('/api/auth/me', { token }), 'me').id;
  const ids = { owner: await me(cast.owner), member: await me(cast.member), expert: await me(expert), expert2: await me(hooliExpert), hooliOwner: await me(cast.hooliOwner) };

  // The catalog: org A's primary assignment, a spare one to unassign, one free to assign.
  const am = cast.am;
  const catalog = ok(await app.get<{ items: Array<{ id: string; slug: string }> }>('/api/specialists?limit=50', { token: am }), 'catalog').items;
  const bySlug = (slug: string) => catalog.find((s) => s.slug === slug)!.id;
  const [primary] = ok(await app.get<{ items: Array<{ id: string; specialistId: string }> }>(`/api/am/orgs/${cast.acmeId}/specialist-assignments`, { token: am }), 'assignments').items;
  ok(await app.post(`/api/am/orgs/${cast.acmeId}/specialist`, { specialistId: bySlug('jean-luc-moreau') }, { token: am }), 'spare assignment');

  // Org B: active, with its own Specialist, Expert and conversation.
  ok(await app.post(`/api/am/orgs/${cast.hooliId}/specialist`, { specialistId: bySlug('priya-nair') }, { token: am }), 'org B assignment');
  ok(await app.post(`/api/am/orgs/${cast.hooliId}/finish`, undefined, { token: am }), 'org B finish');
  ok(await app.post(`/api/am/orgs/${cast.hooliId}/expert-grants`, { expertId: ids.expert2, scope: 'org' }, { token: am }), 'org B grant');
  ok(await app.post('/api/conversations', { message: 'Hooli asks about compression' }, { token: cast.hooliOwner }), 'org B conversation');

  // Org A's data.
  const grant = ok(await app.post<{ id: string }>(`/api/am/orgs/${cast.acmeId}/expert-grants`, { expertId: expert3, scope: 'org' }, { token: am }), 'spare grant');
  const conversation = ok(
    await app.post<{ id: string; messages: Array<{ id: string; role: string }> }>('/api/conversations', { message: `Where is my ${marker} order?` }, { token: cast.owner }),
    'conversation',
  );
  const clientMessage = conversation.messages.find((m) => m.role === 'client')!.id;
  const reply = conversation.messages.find((m) => m.role === 'specialist')?.id;
  if (!reply) throw new Error(`fixture conversation: no Specialist reply in ${JSON.stringify(conversation.messages)}`);
  // An attachment kept with it (as the channels worker keeps one): the artifact of the download route.
  const block = await app.running.app
    .get(ArtifactsService)
    .store(unscopedOrg(cast.acmeId, 'test: route fixtures'), { conversationId: conversation.id, name: `${marker}.txt`, contentType: 'text/plain', data: Buffer.from(`${marker} notes`) });
  const artifact = /artifact:\/\/([0-9a-f-]{36})/.exec(block)![1]!;
  ok(await app.post(`/api/conversations/${conversation.id}/escalate`, { reason: `${marker} needs a human` }, { token: cast.member }), 'escalation');
  // A logo (spec 2.1), uploaded as the wizard does: the logo route has something to serve.
  const logo = multipartFile('file', 'logo.png', 'image/png', png(4, 4));
  const logoAnswer = await rawRequest(`${app.url}/api/orgs/${cast.acmeId}/logo`, { method: 'PUT', headers: { authorization: `Bearer ${am}`, 'content-type': logo.contentType }, body: logo.payload });
  if (logoAnswer.status !== 200) throw new Error(`fixture logo: ${logoAnswer.status} ${logoAnswer.text}`);
  const brief = ok(await app.post<{ id: string }>('/api/client-briefs', { title: `${marker} brief`, content: `${marker}: we sell anvils.` }, { token: cast.owner }), 'brief');
  const integration = ok(
    await app.post<{ id: string }>(`/api/orgs/${cast.acmeId}/integrations`, { channel: 'messaging-b', secrets: { webhookSecret, botToken: `bot-${marker}` } }, { token: am }),
    'integration',
  );
  await verifyIntegration(app, cast.acmeId, integration.id, am);
  const notification = ok(await app.post<{ id: string }>('/api/notifications', { userId: ids.owner, type: 'matrix.notice', message: `${marker} notice` }, { token: cast.superadmin }), 'notification');
  const [invoice] = await app.running.dbService.db
    .insert(invoices)
    .values({ orgId: cast.acmeId, period: '2020-01', currency: 'USD', totalCents: 120_000, issuedAt: new Date(), dueOn: '2020-02-15' })
    .returning();
  const tools = ok(await app.get<{ items: Array<{ name: string }> }>('/api/v1/agent-api/tools', { token: am }), 'tools').items;

  // A third org with an open invite: the token of the public onboarding routes.
  const initech = ok(
    await app.post<{ id: string }>(
      '/api/am/orgs',
      {
        legalName: 'Initech',
        slug: 'initech',
        industry: 'technology',
        corporateDomains: ['initech.example.com'],
        adminEmail: 'bill@initech.example.com',
        website: 'https://initech.example.com',
        timezone: 'America/Chicago',
      },
      { token: am },
    ),
    'org C',
  );
  const invite = ok(await app.post<{ onboardingUrl: string }>(`/api/am/orgs/${initech.id}/invite`, {}, { token: am }), 'invite');
  const inviteToken = new URL(invite.onboardingUrl).searchParams.get('token')!;

  // An invitation of an existing user to org A, open: its token is for that user only.
  ok(await app.post('/api/admin/members/invite', { email: 'target@platform.matrix.invalid', orgRole: 'member' }, { token: cast.owner }), 'member invitation');
  const [invitationMail] = ok(await app.get<Array<{ text: string }>>('/api/dev/mail?to=target@platform.matrix.invalid&limit=1'), 'invitation mail');
  const memberInvitation = /invitations\/accept\?token=([\w-]+)/.exec(invitationMail!.text)![1]!;

  // Tokens that must be refused: the signature, the algorithm, the expiry, the revocation.
  const superadmin = (await users.load(await me(cast.superadmin)))!;
  const subject = { userId: superadmin.id, email: superadmin.email, name: superadmin.name, platformRole: superadmin.platformRole, orgMemberships: [] };
  const claims = { email: subject.email, name: subject.name, platformRole: 'superadmin', orgMemberships: [], pwv: Date.now() };
  const now = Math.floor(Date.now() / 1000);
  const foreign = await generateKeyPair('RS256');
  const foreignKey = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setSubject(subject.userId)
    .setIssuer('client-organization-service')
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(foreign.privateKey);
  const payload = b64url({ ...claims, sub: subject.userId, iss: 'client-organization-service', iat: now, exp: now + 3600 });
  const algNone = `${b64url({ alg: 'none', typ: 'JWT' })}.${payload}.`;
  const hsInput = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${payload}`;
  const hmacWithPublicKey = `${hsInput}.${createHmac('sha256', app.running.config.keys.jwtPublicKeyPem).update(hsInput).digest('base64url')}`;
  // Refused for their expiry or lifetime alone: each names an open session of the superadmin.
  const { sessionId } = await app.running.app.get(SessionsService).open(subject, 'test');
  const expired = await app.running.app.get(TokenService).sign({ ...subject, sessionId }, Date.now() - 8 * 24 * 3600_000);
  const ownKey = await importPKCS8(app.running.config.keys.jwtPrivateKeyPem, 'RS256');
  const ownSigned = (iat: number, exp: number, sid: string | null = sessionId) =>
    new SignJWT({ ...claims, ...(sid ? { sid } : {}) })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setSubject(subject.userId)
      .setIssuer('client-organization-service')
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(ownKey);
  const overlong = await ownSigned(now, now + 30 * 24 * 3600);
  const issuedAhead = await ownSigned(now + 600, now + 3600);
  const sessionless = await ownSigned(now, now + 3600, null);
  const revokedToken = await app.login('revoked@acme.matrix.invalid', PASSWORD);
  await new Promise((r) => setTimeout(r, 5));
  await users.setPassword(revokedId, 'a-brand-new-password');
  const loggedOut = await app.login('superadmin@platform.demo.invalid', PASSWORD);
  ok(await app.post('/api/auth/logout', {}, { token: loggedOut }), 'logout');
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  const refs: RouteFixtures['refs'] = {
    org: cast.acmeId,
    assignment: primary!.id,
    spareSpecialist: bySlug('jean-luc-moreau'),
    conversation: conversation.id,
    artifact,
    clientMessage,
    reply,
    brief: brief.id,
    integration: integration.id,
    notification: notification.id,
    invoice: invoice!.id,
    grant: grant.id,
    memberVictim,
    inviteToken,
    memberInvitation,
    catalogSpecialist: bySlug('maya-chen'),
    adminTarget,
    toolName: tools[0]!.name,
  };
  const sessions = app.running.app.get(SessionsService);
  const freshToken = async (who: Role | OtherOrgCaller) => {
    const sub = (JSON.parse(Buffer.from(tokens[who].split('.')[1]!, 'base64url').toString()) as { sub: string }).sub;
    const record = (await users.load(sub))!;
    return (await sessions.open({ userId: sub, email: record.email, name: record.name, platformRole: record.platformRole, orgMemberships: record.orgMemberships }, 'test')).token;
  };
  return {
    acmeId: cast.acmeId,
    hooliId: cast.hooliId,
    tokens,
    freshToken,
    unauthenticated: {
      none: {},
      malformed: bearer('not-a-jwt'),
      basicScheme: { authorization: `Basic ${Buffer.from(`superadmin@platform.demo.invalid:${PASSWORD}`).toString('base64')}` },
      foreignKey: bearer(foreignKey),
      algNone: bearer(algNone),
      hmacWithPublicKey: bearer(hmacWithPublicKey),
      expired: bearer(expired),
      revoked: bearer(revokedToken),
      loggedOut: bearer(loggedOut),
      overlong: bearer(overlong),
      issuedAhead: bearer(issuedAhead),
      sessionless: bearer(sessionless),
    },
    refs,
    users: { owner: ids.owner, member: ids.member, expert: ids.expert, expert3, hooliOwner: ids.hooliOwner },
    specialists: { primary: primary!.specialistId, free: bySlug('omar-haddad') },
    marker,
    webhookSecret,
    orgASecrets: [marker, ...TENANT_REFS.filter((r) => r !== 'spareSpecialist' && r !== 'inviteToken').map((r) => refs[r]), ids.owner, ids.member, adminId, billingId],
    unique,
  };
}
