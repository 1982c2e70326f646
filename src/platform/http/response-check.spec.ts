import 'reflect-metadata';
import { Controller, Delete, Get, HttpCode, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AllExceptionsFilter } from '../errors/http-exception.filter.js';
import { Endpoint } from './endpoint.js';
import { ResponseSchemaCheck } from './response-check.interceptor.js';

const Item = z.object({ id: z.string(), count: z.number(), seenAt: z.string().nullable() });
type Item = z.infer<typeof Item>;
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

describe('ResponseSchemaCheck (the response check of test runs)', () => {
  let app: NestFastifyApplication;
  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(ShapesModule, new FastifyAdapter(), { logger: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());
  const call = (method: 'GET' | 'DELETE', url: string) => app.getHttpAdapter().getInstance().inject({ method, url });

  it('lets a body of the schema through untouched', async () => {
    const res = await call('GET', '/good');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 'a', count: 1, seenAt: null });
  });

  it.each(['/wrong-type', '/extra', '/list'])('answers 500 for a body outside the schema: GET %s', async (url) => {
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
