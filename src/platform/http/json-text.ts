import { FastifyAdapter } from '@nestjs/platform-fastify';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A JSON body already written, such as a page the database wrote as JSON text: a route's handler
 * may return it in place of the value `T` of its `@Endpoint` response schema, and it is sent as it
 * is (`JsonTextAdapter`), neither parsed nor serialised again. `T` is what the text holds: whoever
 * makes one vouches for it; test runs check it against the route's schema like any other body.
 */
export class JsonText<T = unknown> {
  /** Only the type of what the text holds: two JsonTexts of different values do not mix. */
  declare private readonly holds?: T;

  constructor(readonly text: string) {}

  /** The value the text holds. */
  parse(): T {
    return JSON.parse(this.text) as T;
  }

  /** Where a serialiser meets it anyway (a test's `JSON.stringify`): the value it holds, not a wrapper. */
  toJSON(): T {
    return this.parse();
  }
}

/**
 * Nest's fastify adapter, sending a returned `JsonText` as its text with the JSON media type (the
 * answer a value would get, without fastify's serialisation); everything else as Nest does. The
 * interceptors before it see the `JsonText` itself, and an error still reaches the exception filter.
 */
export class JsonTextAdapter extends FastifyAdapter {
  override reply(response: Parameters<FastifyAdapter['reply']>[0], body: unknown, statusCode?: number): ReturnType<FastifyAdapter['reply']> {
    if (!(body instanceof JsonText)) return super.reply(response, body, statusCode);
    this.setHeader(response, 'content-type', JSON_TYPE);
    return super.reply(response, body.text, statusCode);
  }
}
