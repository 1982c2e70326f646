import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { Public, VendorWebhook } from '../../platform/auth/auth.decorators.js';
import { Endpoint } from '../../platform/http/endpoint.js';
import { IngressService, type WebhookCall } from './ingress.service.js';

type RawRequest = FastifyRequest & { rawBody?: Buffer };

const call = (req: RawRequest): WebhookCall => ({ rawBody: req.rawBody, headers: req.headers, url: req.url });
const Accepted = z.object({ ok: z.boolean(), duplicate: z.boolean().optional() });
const TAGS = ['channels'];
/**
 * What messaging-a expects back from a webhook (API-MAP "Channel bindings and vendor traffic"): an
 * empty TwiML document, `text/xml`. JSON is its error 12300 on every message; the reply goes out
 * later through its REST API.
 */
export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

/**
 * The inbound channel webhooks of spec 4.8. Public (no user token): each is protected by its
 * signature (spec 5.6), checked over the raw body before anything is stored.
 */
@Controller('channels')
@Public()
@VendorWebhook()
export class IngressController {
  constructor(private readonly ingress: IngressService) {}

  @Post('chat-a/events')
  @HttpCode(200)
  @Endpoint({
    summary: 'chat-a events (X-Chat-A-Signature, X-Chat-A-Request-Timestamp within 300 s); url_verification answers its challenge',
    tags: TAGS,
    response: Accepted.or(z.object({ challenge: z.string() })),
    errors: [401, 429, 503],
  })
  chatA(@Req() req: RawRequest) {
    return this.ingress.chatA(call(req));
  }

  @Post('email/inbound')
  @HttpCode(200)
  @Endpoint({ summary: 'Inbound email: { rawMessage: base64 RFC 822 }, X-Email-Signature: sha256=<hex HMAC>', tags: TAGS, response: Accepted, errors: [400, 401, 503] })
  email(@Req() req: RawRequest) {
    return this.ingress.email(call(req));
  }

  @Post('messaging-a/inbound')
  @HttpCode(200)
  @Endpoint({
    summary: "messaging-a inbound (form-encoded; X-Messaging-A-Signature with the platform's token for a pool number To, else with the token of the org's own account named by AccountSid, To one of its numbers); answers an empty TwiML document",
    tags: TAGS,
    response: z.string().meta({ example: EMPTY_TWIML }),
    responseType: 'text/xml',
    errors: [401, 503],
  })
  async messagingA(@Req() req: RawRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.ingress.messagingA(call(req));
    void reply.header('content-type', 'text/xml; charset=utf-8');
    return EMPTY_TWIML;
  }

  @Post('messaging-b/webhook')
  @HttpCode(200)
  @Endpoint({ summary: "messaging-b updates (X-Messaging-B-Secret-Token: the integration's webhook secret)", tags: TAGS, response: Accepted, errors: [401, 503] })
  messagingB(@Req() req: RawRequest) {
    return this.ingress.messagingB(call(req));
  }

  @Post('enterprise-chat/webhook')
  @HttpCode(200)
  @Endpoint({ summary: 'enterprise-chat activities (Authorization: Bearer <RS256 JWT>, spec 5.6)', tags: TAGS, response: Accepted, errors: [401] })
  enterpriseChatWebhook(@Req() req: RawRequest) {
    return this.ingress.enterpriseChat(call(req));
  }

  @Post('enterprise-chat/messages')
  @HttpCode(200)
  @Endpoint({ summary: 'enterprise-chat activities (same validation and routing as /webhook)', tags: TAGS, response: Accepted, errors: [401] })
  enterpriseChatMessages(@Req() req: RawRequest) {
    return this.ingress.enterpriseChat(call(req));
  }
}
