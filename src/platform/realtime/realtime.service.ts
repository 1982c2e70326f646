import { Inject, Injectable, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import { Server, type Namespace, type Socket } from 'socket.io';
import type { Server as HttpServer } from 'node:http';
import {
  AUDIENCE_CLIENT_ROOM,
  AUDIENCE_STAFF_ROOM,
  EXPERTS_ALL_ORGS_ROOM,
  EXPERTS_ROOM,
  MAX_SOCKETS_PER_USER,
  REALTIME_NAMESPACE,
  conversationRoom,
  expertsOrgRoom,
  orgRoom,
  orgThreadRooms,
  sessionRoom,
  userRoom,
  type ClientToServerEvents,
  type RoomAck,
  type ServerEventName,
  type ServerEventPayload,
  type ServerToClientEvents,
  type SocketRefusal,
  type ThreadScope,
} from '../../contracts/realtime.js';
import { isClientRole, type PlatformRole } from '../../contracts/roles.js';
import { AuditService } from '../audit/audit.service.js';
import { AccessEvents, type AccessChange } from '../auth/access-events.js';
import type { Principal } from '../auth/principal.js';
import { RequestAuthenticator, bearerToken } from '../auth/request-auth.js';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import { logger } from '../observability/logger.js';
import { definePort, Ports } from '../ports/ports.js';
import { securityEvent } from '../observability/security-log.js';
import { RateLimitService, type Limiter } from '../rate-limit/rate-limit.service.js';
import { closeRedis, REDIS_CLIENT } from '../redis/redis.js';

interface SocketData {
  principal: Principal;
}
/** What the instances of one deployment tell each other (through the Redis adapter). */
interface InterServerEvents {
  access_change: (change: AccessChange) => void;
  /** One event in its two views (toAudiences): one publish, each instance delivers both views to its own sockets. */
  audiences: (push: AudiencePush) => void;
  count_user_sockets: (userId: string, ack: (count: number) => void) => void;
}
interface AudiencePush {
  rooms: string[];
  event: ServerEventName;
  staff: unknown;
  client: unknown;
}
type NotificationsNamespace = Namespace<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
type AppSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
type Handshake = AppSocket['handshake'];

/**
 * Rooms a non-client socket joins besides its memberships' org rooms (AM assignments, Expert
 * grants: the org's rooms for an org-wide grant, the Specialist's part of them for a scoped one);
 * asked again whenever the user's reach changes. Each module that gives reach provides one.
 */
export interface RoomSource {
  roomsFor(principal: Principal): Promise<string[]>;
}
export const ROOM_SOURCE = definePort<RoomSource>('ROOM_SOURCE');

/** Who may join a conversation room (join_conversation): provided by the conversations module. */
export interface ConversationAccessCheck {
  /** The org of a conversation the caller may follow, or null. */
  followableOrg(principal: Principal, conversationId: string): Promise<string | null>;
}
export const CONVERSATION_ACCESS = definePort<ConversationAccessCheck>('CONVERSATION_ACCESS');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EXPERT_ROOM_ROLES: readonly PlatformRole[] = ['expert', 'superadmin'];
const CONVERSATION_ROOM_PREFIX = conversationRoom('');
/** How long a handshake waits for the other instances' socket counts before counting its own alone. */
const CLUSTER_ANSWER_MS = 2000;

class SocketRefused extends Error {
  constructor(
    message: string,
    readonly data: SocketRefusal,
  ) {
    super(message);
  }
}

/**
 * The Socket.IO surface of spec 5.5 / 6.1. The identity comes from the verified token only
 * (revocation included); the rooms follow from it, and keep following it: every access change
 * (AccessEvents) reaches the user's sockets on every instance, and join_conversation checks the
 * token and the user's reach again. With Redis, the Redis adapter carries every emit and every
 * access change to the sockets of every instance.
 */
@Injectable()
export class RealtimeService implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private io?: Server;
  private closing = false;
  private ns?: NotificationsNamespace;
  private pub?: Redis;
  private sub?: Redis;
  private roomSources: RoomSource[] = [];
  private conversationAccess!: ConversationAccessCheck;
  private readonly ipThrottle: Limiter;
  /** The token each local socket signed in with: kept here, never in `socket.data` (which other instances may fetch). */
  private readonly tokens = new WeakMap<AppSocket, string>();
  /** Handshakes and access changes of one user run one at a time on this instance. */
  private readonly userQueues = new Map<string, Promise<unknown>>();
  /** Access changes applied so far here, and the count each socket's handshake started from. */
  private accessChanges = 0;
  private readonly changesSeen = new WeakMap<AppSocket, number>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly authenticator: RequestAuthenticator,
    private readonly audit: AuditService,
    private readonly ports: Ports,
    accessEvents: AccessEvents,
    rateLimits: RateLimitService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis,
  ) {
    this.ipThrottle = rateLimits.ipThrottle();
    accessEvents.on((change) => this.follow(change));
  }

  /** Sockets are served only once these are known: without the conversation access the app does not start. */
  onModuleInit(): void {
    this.conversationAccess = this.ports.one(CONVERSATION_ACCESS);
    this.roomSources = this.ports.all(ROOM_SOURCE);
  }

  onApplicationBootstrap(): void {
    const httpServer = this.adapterHost.httpAdapter.getHttpServer() as HttpServer;
    const io = new Server(httpServer, {
      path: '/socket.io/',
      serveClient: false,
      cors: { origin: false },
      // A stopping instance takes no new sockets: clients reconnect to another one.
      allowRequest: (_req, callback) => callback(this.closing ? 'shutting down' : null, !this.closing),
    });
    if (this.redis) {
      // Subscriptions must survive a Redis restart: these two keep an offline queue.
      this.pub = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
      this.sub = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
      for (const c of [this.pub, this.sub]) c.on('error', () => undefined);
      io.adapter(createAdapter(this.pub, this.sub, { key: `${this.config.redisKeyPrefix}socket.io`, requestsTimeout: CLUSTER_ANSWER_MS }));
    }
    const ns = io.of(REALTIME_NAMESPACE) as NotificationsNamespace;
    // Authenticated and in its rooms before `connect` reaches the client: nothing is missed.
    ns.use((socket, next) => {
      this.admit(socket).then(
        () => next(),
        (err: Error) => next(err),
      );
    });
    ns.on('connection', (socket) => this.onConnection(socket));
    // The default namespace carries nothing (spec 6.1 names only /notifications): it keeps no socket
    // open, a tokenless one refused as on /notifications (spec 5.5), a signed-in one sent there.
    io.of('/').use((socket, next) => {
      this.refuseDefault(socket as AppSocket).catch((err: Error) => next(err));
    });
    // From the other instances: an access change committed there, a count of this user's sockets here.
    ns.on('access_change', (change) => void this.applyHere(change));
    ns.on('audiences', (push) => this.deliverHere(push));
    ns.on('count_user_sockets', (userId, ack) => {
      if (typeof ack === 'function') ack(this.localSocketCount(userId));
    });
    this.io = io;
    this.ns = ns;
  }

  /**
   * Before the HTTP server closes: it waits for every open connection, and a socket stays open
   * until it is told to go, so the sockets are closed first (their clients reconnect elsewhere).
   */
  beforeApplicationShutdown(): void {
    this.closing = true;
    this.io?.disconnectSockets(true);
    this.io?.engine.close();
  }

  async onApplicationShutdown(): Promise<void> {
    const io = this.io;
    this.io = undefined;
    if (io) {
      io.disconnectSockets(true);
      await new Promise<void>((resolve) => void io.close(() => resolve()));
    }
    // The publisher stays open: jobs still finishing (the queue stops alongside) emit events
    // that other instances' sockets must get. disconnectRedis() closes it at the very end.
  }

  /**
   * Closes the Redis connections of the adapter once nothing runs (the app's last step); later
   * emits are dropped. The adapter publishes without waiting for an answer: the publishes already
   * issued go out before the publisher closes, none is failed by the close.
   */
  async disconnectRedis(): Promise<void> {
    this.ns = undefined;
    this.sub?.disconnect();
    await closeRedis(this.pub);
  }

  /** Sends an event to rooms on every instance. A failed push is logged; the caller's write stands. */
  emit<E extends ServerEventName>(rooms: string | string[], event: E, payload: ServerEventPayload<E>): boolean {
    if (!this.ns) return false;
    try {
      (this.ns.to(rooms) as unknown as { emit: (e: string, p: unknown) => boolean }).emit(event, payload);
      return true;
    } catch (err) {
      logger.warn({ err, event }, 'realtime push failed');
      return false;
    }
  }

  toUser<E extends ServerEventName>(userId: string, event: E, payload: ServerEventPayload<E>): boolean {
    return this.emit(userRoom(userId), event, payload);
  }

  /** To the org room only: its org-wide staff. An event about a thread goes to orgThreadRooms instead. */
  toOrg<E extends ServerEventName>(orgId: string, event: E, payload: ServerEventPayload<E>): boolean {
    return this.emit(orgRoom(orgId), event, payload);
  }

  /**
   * An Expert-queue event about one thread: to the Experts whose grants cover its org or its
   * Specialist and the superadmins (never to `experts` as a whole), and to the org room's staff;
   * never to client sockets.
   */
  toQueue<E extends ServerEventName>(thread: ThreadScope, event: E, payload: ServerEventPayload<E>): boolean {
    return this.toAudiences([expertsOrgRoom(thread.orgId), EXPERTS_ALL_ORGS_ROOM, ...orgThreadRooms(thread)], event, { staff: payload, client: null });
  }

  toConversation<E extends ServerEventName>(conversationId: string, event: E, payload: ServerEventPayload<E>): boolean {
    return this.emit(conversationRoom(conversationId), event, payload);
  }

  /**
   * One event in two views: `staff` to the rooms' internal sockets, `client` (or nothing, when
   * null) to their client-role sockets. Client roles never see internal notes or Expert identities.
   */
  toAudiences<E extends ServerEventName>(rooms: string[], event: E, views: { staff: ServerEventPayload<E>; client: ServerEventPayload<E> | null }): boolean {
    if (!this.ns) return false;
    const push: AudiencePush = { rooms, event, staff: views.staff, client: views.client };
    try {
      // One publish for both views (the adapter would publish each emit, one per view): the other
      // instances deliver it to their sockets as this one does to its own.
      if (this.redis) this.ns.serverSideEmit('audiences', push);
      this.deliverHere(push);
      return true;
    } catch (err) {
      logger.warn({ err, event }, 'realtime push failed');
      return false;
    }
  }

  /**
   * Both views of an audience push to this instance's sockets in its rooms: the rooms' own members,
   * each told apart by its audience room (a socket in neither gets nothing), then each view once to
   * its sockets (by the room every socket has of its own id). A push costs its recipients: an
   * audience's room is looked up, never listed (excluding the other audience by room would copy
   * every socket of it on this instance, for every push).
   */
  private deliverHere({ rooms, event, staff, client }: AudiencePush): void {
    const ns = this.ns;
    if (!ns) return;
    const members = ns.adapter.rooms;
    const clients = members.get(AUDIENCE_CLIENT_ROOM);
    const staffs = members.get(AUDIENCE_STAFF_ROOM);
    // A socket in several of the rooms is named more than once; the broadcast sends to each socket once.
    const toStaff: string[] = [];
    const toClients: string[] = [];
    for (const room of rooms) {
      for (const id of members.get(room) ?? []) {
        if (staffs?.has(id)) toStaff.push(id);
        else if (clients?.has(id)) toClients.push(id);
      }
    }
    const local = ns.local as unknown as { to(rooms: string[]): { emit(e: string, p: unknown): boolean } };
    if (toStaff.length > 0) local.to(toStaff).emit(event, staff);
    if (client !== null && toClients.length > 0) local.to(toClients).emit(event, client);
  }

  /**
   * The handshake: the per-IP throttle, the token, at most MAX_SOCKETS_PER_USER sockets per user
   * over every instance, then the rooms. A refusal is a `connect_error` whose `data` says why.
   */
  /**
   * A handshake's identity: counted against the per-IP throttle (spec 8), then its token verified
   * (revocation included); refused (SocketRefused, logged) otherwise.
   */
  private async identify(socket: AppSocket): Promise<Principal> {
    const ip = handshakeIp(socket.handshake, this.config.trustProxy);
    return this.logRefusal(socket, ip, async () => {
      const budget = await this.ipThrottle.consume(`ip:${ip}`);
      if (!budget.allowed) {
        const retryAfterS = Math.max(1, Math.ceil((budget.resetAtMs - Date.now()) / 1000));
        throw new SocketRefused(`Too many connection attempts; retry after ${retryAfterS} seconds`, { code: 'rate_limit', retryAfterS });
      }
      const token = handshakeToken(socket.handshake);
      this.changesSeen.set(socket, this.accessChanges);
      const outcome = await this.authenticator.authenticate(token);
      if (!outcome.principal) throw new SocketRefused('unauthorized', { code: 'unauthorized', reason: outcome.reason });
      socket.data.principal = outcome.principal;
      this.tokens.set(socket, token!);
      return outcome.principal;
    });
  }

  private async admit(socket: AppSocket): Promise<void> {
    const principal = await this.identify(socket);
    await this.logRefusal(socket, handshakeIp(socket.handshake, this.config.trustProxy), () =>
      this.oneAtATime(principal.userId, async () => {
        if ((await this.socketCount(principal.userId)) >= MAX_SOCKETS_PER_USER) {
          throw new SocketRefused(`At most ${MAX_SOCKETS_PER_USER} open sockets per user`, { code: 'too_many_sockets', limit: MAX_SOCKETS_PER_USER });
        }
        await socket.join(await this.roomsFor(principal));
      }),
    );
  }

  /** A handshake on the default namespace: identified as on /notifications, then refused all the same. */
  private async refuseDefault(socket: AppSocket): Promise<never> {
    await this.identify(socket);
    return this.logRefusal(socket, handshakeIp(socket.handshake, this.config.trustProxy), () =>
      Promise.reject(new SocketRefused(`Connect to the ${REALTIME_NAMESPACE} namespace`, { code: 'invalid_namespace', namespace: '/' })),
    );
  }

  /** A refused handshake leaves a security line (without the token). */
  private async logRefusal<T>(socket: AppSocket, ip: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof SocketRefused) {
        const { code, ...detail } = err.data;
        securityEvent('socket_refused', { refusal: code, ...detail, ip, userId: socket.data.principal?.userId });
      }
      throw err;
    }
  }

  /** The rooms of spec 6.1, from the verified identity only (plus the server-side rooms of its session and audience). */
  async roomsFor(principal: Principal): Promise<string[]> {
    const rooms = [userRoom(principal.userId), isClientRole(principal.platformRole) ? AUDIENCE_CLIENT_ROOM : AUDIENCE_STAFF_ROOM];
    if (principal.sessionId) rooms.push(sessionRoom(principal.sessionId));
    if (!isClientRole(principal.platformRole)) {
      for (const m of principal.orgMemberships) rooms.push(orgRoom(m.orgId));
      for (const source of this.roomSources) rooms.push(...(await source.roomsFor(principal)));
    }
    if (EXPERT_ROOM_ROLES.includes(principal.platformRole)) rooms.push(EXPERTS_ROOM);
    if (principal.platformRole === 'superadmin') rooms.push(EXPERTS_ALL_ORGS_ROOM);
    return [...new Set(rooms)];
  }

  private onConnection(socket: AppSocket): void {
    // Access changes applied during the handshake did not see this socket (not connected yet): look again.
    if (this.changesSeen.get(socket) !== this.accessChanges) void this.oneAtATime(socket.data.principal.userId, () => this.recheck(socket));
    socket.on('join_conversation', (conversationId, ack) => {
      const reply = typeof ack === 'function' ? ack : () => undefined;
      void this.joinConversation(socket, conversationId).then(reply, (err: unknown) => {
        logger.warn({ err }, 'join_conversation failed');
        reply({ ok: false, error: 'forbidden' });
      });
    });
    socket.on('leave_conversation', (conversationId, ack) => {
      const reply = typeof ack === 'function' ? ack : () => undefined;
      if (typeof conversationId !== 'string' || !UUID.test(conversationId)) return reply({ ok: false, error: 'invalid' });
      void Promise.resolve(socket.leave(conversationRoom(conversationId))).then(() => reply({ ok: true }));
    });
  }

  /**
   * With the access of now, not of the handshake: the token checked again (a session that ended
   * closes the socket), the user's orgs and grants read again. Made while impersonating, it leaves
   * an `impersonation.action` audit row, as every request does (spec 5.8).
   */
  private async joinConversation(socket: AppSocket, conversationId: unknown): Promise<RoomAck> {
    const valid = typeof conversationId === 'string' && UUID.test(conversationId);
    const outcome = await this.authenticator.authenticate(this.tokens.get(socket));
    const principal = outcome.principal;
    let answer: RoomAck = { ok: false, error: valid ? 'forbidden' : 'invalid' };
    let orgId: string | null = null;
    if (principal && valid) {
      socket.data.principal = principal;
      orgId = await this.conversationAccess.followableOrg(principal, conversationId);
      if (orgId) {
        await socket.join(conversationRoom(conversationId));
        answer = { ok: true };
      }
    }
    const actor = principal ?? socket.data.principal;
    if (actor.impersonatorId) {
      await this.audit.recordImpersonatedAction(actor, {
        method: 'SOCKET',
        route: 'join_conversation',
        path: REALTIME_NAMESPACE,
        target: valid ? conversationId : null,
        statusCode: !principal ? 401 : answer.ok ? 200 : answer.error === 'invalid' ? 400 : 403,
        orgId,
        extra: { conversationId: valid ? conversationId : null },
      });
    }
    // The authenticator logged why the token no longer signs in; its socket goes.
    if (!principal) setImmediate(() => socket.disconnect(true));
    return answer;
  }

  /**
   * An access change committed on this instance: applied to this instance's sockets, and told to
   * the other instances (each applies it to its own). Without Redis there is only this one.
   */
  private async follow(change: AccessChange): Promise<void> {
    if (!this.ns) return;
    if (this.redis) this.ns.serverSideEmit('access_change', change);
    await this.applyHere(change);
  }

  /**
   * Suspension, deactivation, password change, logout: the sockets of the user (or of the ended
   * session) are closed. A changed reach: each socket of the user leaves the org, Expert and
   * conversation rooms it may no longer be in (and joins those it may now be in).
   */
  private async applyHere(change: AccessChange): Promise<void> {
    this.accessChanges++;
    if (!this.ns || !change || typeof change !== 'object') return;
    if (change.kind === 'session_ended') {
      for (const socket of this.localSockets(sessionRoom(change.sessionId))) socket.disconnect(true);
      return;
    }
    const sockets = this.localSockets(userRoom(change.userId));
    if (change.kind === 'user_revoked') {
      for (const socket of sockets) socket.disconnect(true);
      return;
    }
    if (change.kind !== 'reach_changed' || sockets.length === 0) return;
    await this.oneAtATime(change.userId, async () => {
      for (const socket of sockets) await this.recheck(socket);
    });
  }

  /**
   * Brings a socket to its access of now: its rooms follow; a token that no longer signs in closes
   * it for good. When the access cannot be read now, the connection is dropped without a goodbye:
   * the client reconnects by itself and its handshake checks everything afresh.
   */
  private async recheck(socket: AppSocket): Promise<void> {
    try {
      if (!(await this.refresh(socket))) socket.disconnect(true);
    } catch (err) {
      logger.warn({ err, userId: socket.data.principal.userId }, 'socket access unreadable; dropping the connection');
      socket.conn.close();
    }
  }

  /** Brings a socket's rooms to what its user may see now; false when its token no longer signs in. */
  private async refresh(socket: AppSocket): Promise<boolean> {
    const outcome = await this.authenticator.authenticate(this.tokens.get(socket));
    if (!outcome.principal) return false;
    const principal = outcome.principal;
    socket.data.principal = principal;
    const wanted = new Set(await this.roomsFor(principal));
    const leave: string[] = [];
    for (const room of socket.rooms) {
      if (room === socket.id || wanted.has(room)) continue;
      if (room.startsWith(CONVERSATION_ROOM_PREFIX) && (await this.conversationAccess.followableOrg(principal, room.slice(CONVERSATION_ROOM_PREFIX.length)))) continue;
      leave.push(room);
    }
    for (const room of leave) await socket.leave(room);
    const join = [...wanted].filter((room) => !socket.rooms.has(room));
    if (join.length > 0) await socket.join(join);
    return true;
  }

  /** The connected sockets of this instance in a room. */
  private localSockets(room: string): AppSocket[] {
    const ids = this.ns?.adapter.rooms.get(room);
    if (!ids) return [];
    return [...ids].map((id) => this.ns!.sockets.get(id)).filter((s): s is AppSocket => s !== undefined);
  }

  /** This instance's sockets of a user, those still in their handshake included. */
  private localSocketCount(userId: string): number {
    return this.ns?.adapter.rooms.get(userRoom(userId))?.size ?? 0;
  }

  /** The user's sockets on every instance; this instance's alone when the others do not answer in time. */
  private async socketCount(userId: string): Promise<number> {
    const here = this.localSocketCount(userId);
    if (!this.redis || !this.ns) return here;
    const ns = this.ns;
    let timer: NodeJS.Timeout | undefined;
    try {
      const answers = await Promise.race([
        ns.serverSideEmitWithAck('count_user_sockets', userId),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer from the other instances')), CLUSTER_ANSWER_MS);
        }),
      ]);
      return here + answers.reduce((sum, n) => sum + (typeof n === 'number' ? n : 0), 0);
    } catch (err) {
      logger.warn({ err, userId }, 'socket count of the other instances unavailable; counting this instance only');
      return here;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs `fn` after every earlier call for the same user on this instance has settled. */
  private oneAtATime<T>(userId: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.userQueues.get(userId) ?? Promise.resolve()).then(fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.userQueues.set(userId, settled);
    void settled.then(() => {
      if (this.userQueues.get(userId) === settled) this.userQueues.delete(userId);
    });
    return run;
  }

  /** Rooms a local socket is in (tests and diagnostics). */
  localRoomsOf(socketId: string): string[] {
    const socket = this.ns?.sockets.get(socketId);
    return socket ? [...socket.rooms].filter((r) => r !== socketId) : [];
  }
}

/** The token of a handshake: the `auth` object, the `?token=` query, or the Authorization header (spec 5.5). */
function handshakeToken(hs: Handshake): string | undefined {
  const fromAuth = typeof hs.auth?.token === 'string' ? (hs.auth.token as string).replace(/^Bearer\s+/i, '') : undefined;
  const fromQuery = typeof hs.query.token === 'string' ? hs.query.token : undefined;
  return fromAuth || fromQuery || bearerToken(hs.headers.authorization);
}

/** The client's address as the HTTP throttle sees it (fastify's `request.ip`): behind a trusted proxy, the first forwarded address. */
function handshakeIp(hs: Handshake, trustProxy: boolean): string {
  const forwarded = hs.headers['x-forwarded-for'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  return trustProxy && first ? first : hs.address;
}
