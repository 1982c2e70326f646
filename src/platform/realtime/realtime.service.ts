import { Inject, Injectable, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import { Server, type Namespace, type Socket } from 'socket.io';
import type { Server as HttpServer } from 'node:http';
import {
  AUDIENCE_CLIENT_ROOM,
  AUDIENCE_STAFF_ROOM,
  EXPERTS_ROOM,
  REALTIME_NAMESPACE,
  conversationRoom,
  orgRoom,
  userRoom,
  type ClientToServerEvents,
  type RoomAck,
  type ServerEventName,
  type ServerEventPayload,
  type ServerToClientEvents,
} from '../../contracts/realtime.js';
import { CLIENT_ROLES, type PlatformRole } from '../../contracts/roles.js';
import type { Principal } from '../auth/principal.js';
import { RequestAuthenticator, bearerToken } from '../auth/request-auth.js';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import { logger } from '../observability/logger.js';
import { REDIS_CLIENT } from '../redis/redis.js';

interface SocketData {
  principal: Principal;
}
type NotificationsNamespace = Namespace<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
type AppSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/** Extra orgs whose room a non-client socket joins (AM assignments, Expert grants). */
export type OrgRoomSource = (principal: Principal) => Promise<string[]>;
/** Whether a caller may follow a conversation; filled by the conversations module. */
export type ConversationAccessCheck = (principal: Principal, conversationId: string) => Promise<boolean>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EXPERT_ROOM_ROLES: readonly PlatformRole[] = ['expert', 'superadmin'];

export function isClientRole(role: PlatformRole): boolean {
  return (CLIENT_ROLES as readonly PlatformRole[]).includes(role);
}

/**
 * The Socket.IO surface of spec 5.5 / 6.1. The identity comes from the verified token only
 * (revocation included); the rooms follow from it. With Redis, the Redis adapter carries every
 * emit to the sockets of every instance.
 */
@Injectable()
export class RealtimeService implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private io?: Server;
  private closing = false;
  private ns?: NotificationsNamespace;
  private pub?: Redis;
  private sub?: Redis;
  private readonly orgRoomSources: OrgRoomSource[] = [];
  private conversationAccess: ConversationAccessCheck = async () => false;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly authenticator: RequestAuthenticator,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis,
  ) {}

  /** Modules that give a user reach over an org (assignments, grants) add it here at init. */
  addOrgRoomSource(source: OrgRoomSource): void {
    this.orgRoomSources.push(source);
  }

  /** The conversations module decides who may join a conversation room. Until then, nobody. */
  setConversationAccess(check: ConversationAccessCheck): void {
    this.conversationAccess = check;
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
      io.adapter(createAdapter(this.pub, this.sub, { key: `${this.config.redisKeyPrefix}socket.io` }));
    }
    const ns = io.of(REALTIME_NAMESPACE) as NotificationsNamespace;
    // Authenticated and in its rooms before `connect` reaches the client: nothing is missed.
    ns.use((socket, next) => {
      this.authenticate(socket)
        .then(async () => {
          await socket.join(await this.roomsFor(socket.data.principal));
        })
        .then(
          () => next(),
          (err: Error) => next(err),
        );
    });
    ns.on('connection', (socket) => this.onConnection(socket));
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
      await new Promise<void>((resolve) => io.close(() => resolve()));
    }
    // The publisher stays open: jobs still finishing (the queue stops alongside) emit events
    // that other instances' sockets must get. disconnectRedis() closes it at the very end.
  }

  /** Closes the Redis connections of the adapter once nothing runs (the app's last step); later emits are dropped. */
  disconnectRedis(): void {
    this.ns = undefined;
    this.pub?.disconnect();
    this.sub?.disconnect();
  }

  /**
   * Sends an event to rooms on every instance, but not to sockets in `except`. A failed push is
   * logged; the caller's write stands.
   */
  emit<E extends ServerEventName>(rooms: string | string[], event: E, payload: ServerEventPayload<E>, except?: string | string[]): boolean {
    if (!this.ns) return false;
    try {
      const target = except ? this.ns.to(rooms).except(except) : this.ns.to(rooms);
      (target as unknown as { emit: (e: string, p: unknown) => boolean }).emit(event, payload);
      return true;
    } catch (err) {
      logger.warn({ err, event }, 'realtime push failed');
      return false;
    }
  }

  toUser<E extends ServerEventName>(userId: string, event: E, payload: ServerEventPayload<E>): boolean {
    return this.emit(userRoom(userId), event, payload);
  }

  toOrg<E extends ServerEventName>(orgId: string, event: E, payload: ServerEventPayload<E>): boolean {
    return this.emit(orgRoom(orgId), event, payload);
  }

  toExperts<E extends ServerEventName>(event: E, payload: ServerEventPayload<E>): boolean {
    return this.emit(EXPERTS_ROOM, event, payload);
  }

  toConversation<E extends ServerEventName>(conversationId: string, event: E, payload: ServerEventPayload<E>): boolean {
    return this.emit(conversationRoom(conversationId), event, payload);
  }

  /**
   * One event in two views: `staff` to the rooms' internal sockets, `client` (or nothing, when
   * null) to their client-role sockets. Client roles never see internal notes or Expert identities.
   */
  toAudiences<E extends ServerEventName>(rooms: string[], event: E, views: { staff: ServerEventPayload<E>; client: ServerEventPayload<E> | null }): boolean {
    const staff = this.emit(rooms, event, views.staff, AUDIENCE_CLIENT_ROOM);
    const client = views.client === null || this.emit(rooms, event, views.client, AUDIENCE_STAFF_ROOM);
    return staff && client;
  }

  private async authenticate(socket: AppSocket): Promise<void> {
    const hs = socket.handshake;
    const fromAuth = typeof hs.auth?.token === 'string' ? (hs.auth.token as string).replace(/^Bearer\s+/i, '') : undefined;
    const fromQuery = typeof hs.query.token === 'string' ? hs.query.token : undefined;
    const token = fromAuth || fromQuery || bearerToken(hs.headers.authorization);
    const outcome = await this.authenticator.authenticate(token);
    if (!outcome.principal) throw Object.assign(new Error('unauthorized'), { data: { code: 'unauthorized', reason: outcome.reason } });
    socket.data.principal = outcome.principal;
  }

  /** The rooms of spec 6.1, from the verified identity only. */
  async roomsFor(principal: Principal): Promise<string[]> {
    const rooms = [userRoom(principal.userId), isClientRole(principal.platformRole) ? AUDIENCE_CLIENT_ROOM : AUDIENCE_STAFF_ROOM];
    if (!isClientRole(principal.platformRole)) {
      const orgIds = new Set(principal.orgMemberships.map((m) => m.orgId));
      for (const source of this.orgRoomSources) for (const id of await source(principal)) orgIds.add(id);
      for (const id of orgIds) rooms.push(orgRoom(id));
    }
    if (EXPERT_ROOM_ROLES.includes(principal.platformRole)) rooms.push(EXPERTS_ROOM);
    return rooms;
  }

  private onConnection(socket: AppSocket): void {
    const principal = socket.data.principal;
    socket.on('join_conversation', (conversationId, ack) => {
      const reply = typeof ack === 'function' ? ack : () => undefined;
      if (typeof conversationId !== 'string' || !UUID.test(conversationId)) return reply({ ok: false, error: 'invalid' } satisfies RoomAck);
      void this.conversationAccess(principal, conversationId)
        .catch(() => false)
        .then(async (allowed) => {
          if (!allowed) return reply({ ok: false, error: 'forbidden' });
          await socket.join(conversationRoom(conversationId));
          reply({ ok: true });
        });
    });
    socket.on('leave_conversation', (conversationId, ack) => {
      const reply = typeof ack === 'function' ? ack : () => undefined;
      if (typeof conversationId !== 'string' || !UUID.test(conversationId)) return reply({ ok: false, error: 'invalid' });
      void Promise.resolve(socket.leave(conversationRoom(conversationId))).then(() => reply({ ok: true }));
    });
  }

  /** Rooms a local socket is in (tests and diagnostics). */
  localRoomsOf(socketId: string): string[] {
    const socket = this.ns?.sockets.get(socketId);
    return socket ? [...socket.rooms].filter((r) => r !== socketId) : [];
  }
}
