import 'reflect-metadata';
import { Controller, Delete, Get, HttpCode, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../errors/app-error.js';
import { AllExceptionsFilter } from '../errors/http-exception.filter.js';
import { Endpoint } from './endpoint.js';
import { JsonText, JsonTextAdapter } from './json-text.js';
import { ResponseSchemaCheck } from './response-check.interceptor.js';

const Item = z.object({ id: z.string(), count: z.number(), seenAt: z.string().nullable() });
type Item = z.infer<typeof Item>;
/** As a database writes JSON: spaces a serialiser would not put, which must reach the client untouched. */
const WRITTEN = '{"id" : "a", "count" : 1, "seenAt" : null}';
/** What a handler returns when a cast or an untyped value slipped past the compiler. */
const fromElsewhere = (value: unknown) => value as Item;

@Controller()
class ShapesController {
  @Get('good')
  @Endpoint({ summary: 'a matching body', response: Item })
  good() {
    return { id: 'a', count: 1, seenAt: null };
  }

  @Get('wrong-type')
  @Endpoint({ summary: 'a count that is a string', response: Item })
  wrongType() {
    return fromElsewhere({ id: 'a', count: '1', seenAt: null });
  }

  @Get('date')
  @Endpoint({ summary: 'a Date, sent as its ISO string', response: Item })
  date() {
    return fromElsewhere({ id: 'a', count: 1, seenAt: new Date(0) });
  }

  @Get('extra')
  @Endpoint({ summary: 'a field the schema does not name', response: Item })
  async extra() {
    return fromElsewhere({ id: 'a', count: 1, seenAt: null, passwordHash: 'x' });
  }

  @Get('list')
  @Endpoint({ summary: 'a list with one bad item', response: z.object({ items: z.array(Item) }) })
  list() {
    return { items: [{ id: 'a', count: 1, seenAt: null }, fromElsewhere({ id: 'b', seenAt: null })] };
  }

  @Get('text')
  @Endpoint({ summary: 'a body already written', response: Item })
  text() {
    return new JsonText<Item>(WRITTEN);
  }

  @Get('text-outside')
  @Endpoint({ summary: 'written text outside the schema', response: Item })
  textOutside() {
    return new JsonText<Item>('{"id" : "a", "count" : "1", "seenAt" : null}');
  }

  @Get('text-extra')
  @Endpoint({ summary: 'written text with a field the schema does not name', response: Item })
  textExtra() {
    return new JsonText<Item>('{"id" : "a", "count" : 1, "seenAt" : null, "passwordHash" : "x"}');
  }

  @Get('text-fails')
  @Endpoint({ summary: 'fails before its body is written', response: Item, errors: [404] })
  async textFails(): Promise<JsonText<Item>> {
    await Promise.resolve();
    throw AppError.notFound('Item');
  }

  @Get('undeclared')
  undeclared() {
    return { id: 'a', count: 1, seenAt: null };
  }

  @Delete('gone')
  @HttpCode(204)
  @Endpoint({ summary: 'no content', response: null, status: 204 })
  gone(): void {
    return fromElsewhere({ id: 'a' }) as unknown as void;
  }
}

@Module({
  controllers: [ShapesController],
  providers: [
    { provide: APP_INTERCEPTOR, useClass: ResponseSchemaCheck },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
  ],
})
class ShapesModule {}

describe('ResponseSchemaCheck (the response check of test runs), on the JsonTextAdapter', () => {
  let app: NestFastifyApplication;
  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(ShapesModule, new JsonTextAdapter(), { logger: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());
  const call = (method: 'GET' | 'DELETE' | 'HEAD', url: string) => app.getHttpAdapter().getInstance().inject({ method, url });

  it('lets a body of the schema through untouched', async () => {
    const res = await call('GET', '/good');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 'a', count: 1, seenAt: null });
  });

  it('sends a JsonText as it is, as JSON, with the headers a serialised value gets', async () => {
    const [text, value] = await Promise.all([call('GET', '/text'), call('GET', '/good')]);
    expect(text.statusCode).toBe(200);
    expect(text.body).toBe(WRITTEN);
    expect(text.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(text.headers['content-type']).toBe(value.headers['content-type']);
    expect(text.headers['content-length']).toBe(String(Buffer.byteLength(WRITTEN)));
    expect(text.json()).toEqual(value.json());
    const head = await call('HEAD', '/text');
    expect([head.statusCode, head.headers['content-type'], head.body]).toEqual([200, 'application/json; charset=utf-8', '']);
  });

  it('leaves an error of a JsonText route to the exception filter', async () => {
    const res = await call('GET', '/text-fails');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ statusCode: 404, code: 'not_found' });
  });

  it.each(['/wrong-type', '/extra', '/list', '/text-outside', '/text-extra'])('answers 500 for a body outside the schema: GET %s', async (url) => {
    const res = await call('GET', url);
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ statusCode: 500, code: 'internal_error' });
  });

  it('reads the body as JSON sends it: a Date is its ISO string', async () => {
    expect((await call('GET', '/date')).statusCode).toBe(200);
  });

  it('answers 500 on a route without an @Endpoint', async () => {
    expect((await call('GET', '/undeclared')).statusCode).toBe(500);
  });

  it('answers 500 for a body on a route that answers no content', async () => {
    expect((await call('DELETE', '/gone')).statusCode).toBe(500);
  });
});
