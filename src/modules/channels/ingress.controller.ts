import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { Public, VendorWebhook } from '../../platform/auth/auth.decorators.js';
import { AppError } from '../../platform/errors/app-error.js';
import { Endpoint } from '../../platform/http/endpoint.js';
import { FormLimitError, isMultipart, readForm } from '../../platform/http/multipart.js';
import { ChatAAnswerSchema, WebhookAcceptedSchema } from './channels.schemas.js';
import { IngressService, type WebhookCall } from './ingress.service.js';

type RawRequest = FastifyRequest & { rawBody?: Buffer };

const call = (req: RawRequest): WebhookCall => ({ rawBody: req.rawBody, headers: req.headers, url: req.url });
const TAGS = ['channels'];
/**
 * What messaging-a expects back from a webhook (API-MAP "Channel bindings and vendor traffic"): an
 * empty TwiML document, `text/xml`. JSON is its error 12300 on every message; the reply goes out
 * later through its REST API.
 */
export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

/** The largest message Mailgun accepts (25 MB), and so the largest it forwards. */
export const MAX_MAILGUN_MIME_BYTES = 25 * 1024 * 1024;

/**
 * The text fields of a Mailgun Route's multipart form (a file part counts as its text), read
 * within limits: one message of at most MAX_MAILGUN_MIME_BYTES and a few small fields; anything
 * bigger is 413, a broken form 400. Another media type has no fields (and so no signature).
 */
async function mailgunForm(req: FastifyRequest): Promise<Record<string, string>> {
  const fields: Record<string, string> = {};
  if (!isMultipart(req)) return fields;
  let parts;
  try {
    parts = await readForm(req, { fieldSize: MAX_MAILGUN_MIME_BYTES, fileSize: MAX_MAILGUN_MIME_BYTES, fields: 64, files: 2, parts: 66 });
  } catch (err) {
    if (err instanceof FormLimitError) throw new AppError('payload_too_large', `The form is larger than ${MAX_MAILGUN_MIME_BYTES} bytes`);
    throw AppError.badRequest('Malformed multipart/form-data body');
  }
  // The first of a repeated name stands.
  for (const part of parts) {
    if (!Object.hasOwn(fields, part.name)) fields[part.name] = part.kind === 'file' ? part.data.toString('utf8') : part.value;
  }
  return fields;
}

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
    summary:
      "chat-a events (X-Chat-A-Signature, X-Chat-A-Request-Timestamp within 300 s); url_verification answers its challenge. A new event spends one of the workspace's 1000 requests per 60 s (X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset); a redelivery (same event_id) spends none",
    tags: TAGS,
    response: ChatAAnswerSchema,
    errors: [401, 429, 503],
  })
  async chatA(@Req() req: RawRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const answer = await this.ingress.chatA(call(req));
    for (const [name, value] of Object.entries(answer.headers)) void reply.header(name, value);
    return answer.body;
  }

  @Post('email/inbound')
  @HttpCode(200)
  @Endpoint({ summary: 'Inbound email: { rawMessage: base64 RFC 822 }, X-Email-Signature: sha256=<hex HMAC>', tags: TAGS, response: WebhookAcceptedSchema, errors: [400, 401, 503] })
  email(@Req() req: RawRequest) {
    return this.ingress.email(call(req));
  }

  @Post('email/forward/mime')
  @HttpCode(200)
  @Endpoint({
    summary:
      'Inbound email from a Mailgun Route (forward() to this URL; it ends in mime, so the raw message is posted): multipart/form-data with body-mime, recipient, timestamp, token and signature = hex HMAC-SHA256(MAILGUN_WEBHOOK_SIGNING_KEY, timestamp + token), timestamp within 300 s, each token good once',
    tags: TAGS,
    response: WebhookAcceptedSchema,
    errors: [400, 401, 413, 503],
  })
  async mailgun(@Req() req: RawRequest) {
    return this.ingress.mailgun(await mailgunForm(req));
  }

  @Post('messaging-a/inbound')
  @HttpCode(200)
  @Endpoint({
    summary:
      "messaging-a inbound (form-encoded; X-Messaging-A-Signature with the platform's token for a pool number To, else with the token of the org's own account named by AccountSid, To one of its numbers); answers an empty TwiML document",
    tags: TAGS,
    response: { raw: 'text/xml', schema: z.string().meta({ example: EMPTY_TWIML }) },
    errors: [401, 503],
  })
  async messagingA(@Req() req: RawRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.ingress.messagingA(call(req));
    void reply.header('content-type', 'text/xml; charset=utf-8');
    return EMPTY_TWIML;
  }

  @Post('messaging-b/webhook')
  @HttpCode(200)
  @Endpoint({ summary: "messaging-b updates (X-Messaging-B-Secret-Token: the integration's webhook secret)", tags: TAGS, response: WebhookAcceptedSchema, errors: [401, 503] })
  messagingB(@Req() req: RawRequest) {
    return this.ingress.messagingB(call(req));
  }

  @Post('enterprise-chat/webhook')
  @HttpCode(200)
  @Endpoint({ summary: 'enterprise-chat activities (Authorization: Bearer <RS256 JWT>, spec 5.6)', tags: TAGS, response: WebhookAcceptedSchema, errors: [401] })
  enterpriseChatWebhook(@Req() req: RawRequest) {
    return this.ingress.enterpriseChat(call(req));
  }

  @Post('enterprise-chat/messages')
  @HttpCode(200)
  @Endpoint({ summary: 'enterprise-chat activities (same validation and routing as /webhook)', tags: TAGS, response: WebhookAcceptedSchema, errors: [401] })
  enterpriseChatMessages(@Req() req: RawRequest) {
    return this.ingress.enterpriseChat(call(req));
  }
}
