import { Controller, Get, Headers, HttpCode, Patch, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import {
  AssignExpertSchema,
  ConversationDtoSchema,
  ConversationListQuerySchema,
  CorrectMessageSchema,
  CreateConversationSchema,
  EscalateSchema,
  MessageDtoSchema,
  SearchHitSchema,
  SearchQuerySchema,
  SendMessageSchema,
  SentMessageDtoSchema,
  SetStatusSchema,
  ThreadDtoSchema,
  ThreadQuerySchema,
  type StreamEvent,
} from '../../contracts/conversations.js';
import { PLATFORM_ROLES } from '../../contracts/roles.js';
import { CurrentPrincipal, PlatformRoles } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AppError } from '../../platform/errors/app-error.js';
import { toErrorResponse } from '../../platform/errors/to-error-response.js';
import { logger } from '../../platform/observability/logger.js';
import { Endpoint, ValidBody, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { onePage, pageSchema } from '../../platform/http/pagination.js';
import { ConversationsService } from './conversations.service.js';

const Params = z.object({ id: z.uuid() });
const MessageParams = z.object({ id: z.uuid(), messageId: z.uuid() });
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;
const TAGS = ['conversations'];
const CreatedSchema = ConversationDtoSchema.extend({ messages: z.array(MessageDtoSchema) });
const RevisionSchema = z.object({ id: z.uuid(), previousContent: z.string(), correctedBy: z.string(), reason: z.string().nullable(), createdAt: z.string() });
/** API-MAP "Sessions, sockets and hardening": ai_operator reads conversations but writes none (403 before anything else). */
const Writes = () => PlatformRoles(...PLATFORM_ROLES.filter((role) => role !== 'ai_operator'));
const IDEMPOTENCY_HEADER = { 'Idempotency-Key': 'Optional. A repeated key returns the first result and creates nothing.' };

function idempotencyKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(raw)) throw new AppError('validation_failed', 'Invalid headers', { details: [{ field: 'headers.idempotency-key', message: '1 to 200 visible ASCII characters' }] });
  return raw;
}

/** Marks a deprecated alias (spec 9.3) and names its successor. */
function deprecated(reply: FastifyReply, successor: string): void {
  reply.header('deprecation', 'true');
  reply.header('link', `<${successor}>; rel="successor-version"`);
}

/** Conversations (spec 4.4; API-MAP.md "Conversations"). Any signed-in user reads (ai_operator only reads); the service scopes every thread. */
@Controller('conversations')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Post()
  @HttpCode(201)
  @Writes()
  @Endpoint({
    summary: "Start a conversation with an org's Specialist (default: the primary), optionally with a first message",
    tags: TAGS,
    body: CreateConversationSchema,
    response: CreatedSchema,
    status: 201,
    errors: [403, 404, 409, 429],
  })
  create(@CurrentPrincipal() p: Principal, @ValidBody() body: z.infer<typeof CreateConversationSchema>) {
    return this.conversations.create(p, body);
  }

  @Get()
  @Endpoint({ summary: 'Conversations the caller reaches, newest activity first', tags: TAGS, query: ConversationListQuerySchema, response: pageSchema(ConversationDtoSchema) })
  list(@CurrentPrincipal() p: Principal, @ValidQuery() q: z.infer<typeof ConversationListQuerySchema>) {
    return this.conversations.list(p, q);
  }

  @Get('search')
  @Endpoint({ summary: 'Full-text search of the messages the caller may see', tags: TAGS, query: SearchQuerySchema, response: pageSchema(SearchHitSchema) })
  search(@CurrentPrincipal() p: Principal, @ValidQuery() q: z.infer<typeof SearchQuerySchema>) {
    return this.conversations.search(p, q);
  }

  @Get(':id')
  @Endpoint({ summary: 'A thread with its newest messages (older ones with ?before=<messageId>)', tags: TAGS, params: Params, query: ThreadQuerySchema, response: ThreadDtoSchema, errors: [404] })
  thread(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof Params>, @ValidQuery() q: z.infer<typeof ThreadQuerySchema>) {
    return this.conversations.thread(p, params.id, q);
  }

  @Post(':id/messages')
  @HttpCode(201)
  @Writes()
  @Endpoint({
    summary: 'Send a message: a client message gets one Specialist reply; staff write a follow-up shown as the Specialist, or an internal note',
    tags: TAGS,
    params: Params,
    body: SendMessageSchema,
    response: SentMessageDtoSchema,
    status: 201,
    headers: IDEMPOTENCY_HEADER,
    errors: [403, 404, 429],
  })
  send(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof Params>, @ValidBody() body: z.infer<typeof SendMessageSchema>, @Headers('idempotency-key') key?: string) {
    return this.conversations.send(p, params.id, body, { idempotencyKey: idempotencyKey(key) });
  }

  @Post(':id/messages/stream')
  @Writes()
  @Endpoint({
    summary: 'Send a message and stream the reply as server-sent events: message, delta*, (retry), reply or error, done',
    description: 'The streamed reply is the same single stored message as the non-streamed path. Errors before the stream opens answer as JSON.',
    tags: TAGS,
    params: Params,
    body: SendMessageSchema,
    response: { raw: 'text/event-stream' },
    headers: IDEMPOTENCY_HEADER,
    errors: [403, 404, 429],
  })
  async stream(
    @CurrentPrincipal() p: Principal,
    @ValidParams() params: z.infer<typeof Params>,
    @ValidBody() body: z.infer<typeof SendMessageSchema>,
    @Res() reply: FastifyReply,
    @Headers('idempotency-key') key?: string,
  ): Promise<void> {
    const stream = new EventStream(reply);
    try {
      const sent = await this.conversations.send(p, params.id, body, {
        idempotencyKey: idempotencyKey(key),
        onStored: (message) => stream.write({ event: 'message', data: message }),
        observer: { onDelta: (text) => stream.write({ event: 'delta', data: { text } }), onRetry: () => stream.write({ event: 'retry', data: {} }) },
      });
      const { reply: answer, ...message } = sent;
      if (!stream.opened) stream.write({ event: 'message', data: message });
      if (answer) stream.write({ event: 'reply', data: answer });
      else if (message.role === 'client') stream.write({ event: 'error', data: { code: 'agent_failure', message: 'The Specialist could not answer; an Expert has been told.' } });
      stream.write({ event: 'done', data: {} });
      stream.end();
    } catch (err) {
      if (!stream.opened) throw err;
      const { body: error, unexpected } = toErrorResponse(err, '');
      if (unexpected) logger.error({ err }, 'conversation stream failed');
      stream.write({ event: 'error', data: { code: error.code, message: error.message } });
      stream.end();
    }
  }

  @Patch(':id/messages/:messageId')
  @Writes()
  @Endpoint({
    summary: 'Correct a delivered reply (Experts; audited, the original kept)',
    tags: TAGS,
    params: MessageParams,
    body: CorrectMessageSchema,
    response: MessageDtoSchema,
    errors: [403, 404, 409],
  })
  correct(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof MessageParams>, @ValidBody() body: z.infer<typeof CorrectMessageSchema>) {
    return this.conversations.correct(p, params.id, params.messageId, body);
  }

  @Get(':id/messages/:messageId/revisions')
  @Endpoint({ summary: "A message's earlier versions (staff)", tags: TAGS, params: MessageParams, response: pageSchema(RevisionSchema), errors: [403, 404] })
  async revisions(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof MessageParams>) {
    return onePage(await this.conversations.revisions(p, params.id, params.messageId));
  }

  @Post(':id/escalate')
  @HttpCode(201)
  @Writes()
  @Endpoint({
    summary: 'Ask for a human: the thread goes on the Expert attention list',
    tags: TAGS,
    params: Params,
    body: EscalateSchema,
    response: ConversationDtoSchema,
    status: 201,
    errors: [403, 404],
  })
  escalate(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof Params>, @ValidBody() body: z.infer<typeof EscalateSchema>) {
    return this.conversations.escalate(p, params.id, body.reason);
  }

  @Patch(':id/status')
  @Writes()
  @Endpoint({
    summary: 'Set the status (expert, account_manager, superadmin); snoozed needs snoozeUntil',
    tags: TAGS,
    params: Params,
    body: SetStatusSchema,
    response: ConversationDtoSchema,
    errors: [403, 404],
  })
  setStatus(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof Params>, @ValidBody() body: z.infer<typeof SetStatusSchema>) {
    return this.conversations.changeStatus(p, params.id, { kind: 'set_status', to: body.status }, body);
  }

  @Patch(':id/resolve')
  @Writes()
  @Endpoint({ summary: 'Resolve (pending or awaiting_client -> resolved)', tags: TAGS, params: Params, response: ConversationDtoSchema, errors: [403, 404, 409] })
  resolve(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof Params>) {
    return this.conversations.changeStatus(p, params.id, { kind: 'resolve' });
  }

  @Patch(':id/archive')
  @Writes()
  @Endpoint({ summary: 'Deprecated alias of resolve (spec 9.3)', tags: TAGS, params: Params, response: ConversationDtoSchema, errors: [403, 404, 409] })
  archive(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof Params>, @Res({ passthrough: true }) reply: FastifyReply) {
    deprecated(reply, `/api/conversations/${params.id}/resolve`);
    return this.conversations.changeStatus(p, params.id, { kind: 'resolve' });
  }

  @Patch(':id/reopen')
  @Writes()
  @Endpoint({ summary: 'Reopen (resolved -> pending)', tags: TAGS, params: Params, response: ConversationDtoSchema, errors: [403, 404, 409] })
  reopen(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof Params>) {
    return this.conversations.changeStatus(p, params.id, { kind: 'reopen' });
  }

  @Patch(':id/unarchive')
  @Writes()
  @Endpoint({ summary: 'Deprecated alias of reopen (spec 9.3)', tags: TAGS, params: Params, response: ConversationDtoSchema, errors: [403, 404, 409] })
  unarchive(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof Params>, @Res({ passthrough: true }) reply: FastifyReply) {
    deprecated(reply, `/api/conversations/${params.id}/reopen`);
    return this.conversations.changeStatus(p, params.id, { kind: 'reopen' });
  }

  @Patch(':id/dismiss')
  @Writes()
  @Endpoint({ summary: 'Dismiss (client only; awaiting_client -> resolved)', tags: TAGS, params: Params, response: ConversationDtoSchema, errors: [403, 404, 409] })
  dismiss(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof Params>) {
    return this.conversations.changeStatus(p, params.id, { kind: 'dismiss' });
  }

  @Patch(':id/assign')
  @Writes()
  @Endpoint({ summary: 'Assign the thread to an Expert who covers it (null clears)', tags: TAGS, params: Params, body: AssignExpertSchema, response: ConversationDtoSchema, errors: [403, 404, 409] })
  assign(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof Params>, @ValidBody() body: z.infer<typeof AssignExpertSchema>) {
    return this.conversations.assign(p, params.id, body.expertId);
  }
}

/** A server-sent event stream on a hijacked reply; opened by the first event. */
class EventStream {
  opened = false;

  constructor(private readonly reply: FastifyReply) {}

  write(event: StreamEvent): void {
    if (!this.opened) {
      this.opened = true;
      this.reply.hijack();
      const headers = {
        ...this.reply.getHeaders(),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      };
      this.reply.raw.writeHead(200, headers as Record<string, string>);
    }
    this.reply.raw.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
  }

  end(): void {
    this.reply.raw.end();
  }
}
