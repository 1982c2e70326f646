import { Busboy, type BusboyHeaders } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** What one form may hold; a form past any of them is refused whole (`FormLimitError`). */
export interface FormLimits {
  /** Bytes of one text field's value. */
  fieldSize: number;
  /** Bytes of one file. */
  fileSize: number;
  fields: number;
  files: number;
  parts: number;
  headerPairs?: number;
}

/** A part of a form, in the order the form has them. */
export type FormPart = { kind: 'field'; name: string; value: string } | { kind: 'file'; name: string; filename: string; mimetype: string; data: Buffer };

/** The form went past one of its limits. */
export class FormLimitError extends Error {
  constructor(readonly limit: 'fieldSize' | 'fileSize' | 'fields' | 'files' | 'parts') {
    super(`The form is over its ${limit} limit`);
  }
}

/** The body is not a multipart/form-data body (no boundary, broken parts). */
export class MalformedFormError extends Error {}

/**
 * Lets `multipart/form-data` bodies reach their routes unread: a route that takes a form reads it
 * itself (`readForm`) with its own limits. Nothing runs for any other request (no hook).
 */
export function acceptMultipartBodies(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
}

/** Whether the request carries a `multipart/form-data` body. */
export function isMultipart(req: FastifyRequest): boolean {
  const type = req.headers['content-type'];
  return typeof type === 'string' && type.split(';', 1)[0]!.trim().toLowerCase() === 'multipart/form-data';
}

/**
 * Reads a `multipart/form-data` body whole, within `limits`: its text fields and files, in order.
 * A form past a limit rejects with `FormLimitError`, a broken one with `MalformedFormError`; either
 * way the rest of the body is read and dropped, so nothing is left on the connection.
 */
export function readForm(req: FastifyRequest, limits: FormLimits): Promise<FormPart[]> {
  return new Promise((resolve, reject) => {
    const raw = req.raw;
    let busboy: InstanceType<typeof Busboy>;
    try {
      busboy = new Busboy({ headers: req.headers as BusboyHeaders, limits });
    } catch (err) {
      raw.resume();
      reject(new MalformedFormError((err as Error).message));
      return;
    }
    const parts: (FormPart | undefined)[] = [];
    let openFiles = 0;
    let finished = false;
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      raw.unpipe(busboy);
      raw.resume();
      reject(err);
    };
    const settle = () => {
      if (finished && openFiles === 0 && !failed) resolve(parts as FormPart[]);
    };
    busboy.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) fail(new FormLimitError('fieldSize'));
      else parts.push({ kind: 'field', name, value });
    });
    busboy.on('file', (name, stream, filename, _encoding, mimetype) => {
      const place = parts.push(undefined) - 1;
      const chunks: Buffer[] = [];
      openFiles++;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(new FormLimitError('fileSize')));
      stream.on('error', (err: Error) => fail(new MalformedFormError(err.message)));
      stream.on('end', () => {
        openFiles--;
        parts[place] = { kind: 'file', name, filename, mimetype, data: Buffer.concat(chunks) };
        settle();
      });
    });
    busboy.on('fieldsLimit', () => fail(new FormLimitError('fields')));
    busboy.on('filesLimit', () => fail(new FormLimitError('files')));
    busboy.on('partsLimit', () => fail(new FormLimitError('parts')));
    busboy.on('error', (err: Error) => fail(new MalformedFormError(err.message)));
    busboy.on('finish', () => {
      finished = true;
      settle();
    });
    raw.on('error', (err: Error) => fail(new MalformedFormError(err.message)));
    raw.pipe(busboy);
  });
}
