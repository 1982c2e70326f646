import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { FormLimitError, isMultipart, readForm } from './multipart.js';

export interface UploadedFile {
  data: Buffer;
  /** As the sender named them: never trusted for the type (the caller sniffs the bytes). */
  filename: string;
  declaredType: string;
}

/**
 * The one file of a `multipart/form-data` upload, in the part named `field`, read within
 * `maxBytes`: another media type is 415 `unsupported_media_type`, no such part 400
 * `validation_failed`, a file over the limit (or a second file, or too many parts) 413 `payload_too_large`, a
 * broken form 400 `bad_request`. Every part is read to its end, so nothing is left on the socket.
 */
export async function readUploadedFile(req: FastifyRequest, options: { field: string; maxBytes: number; what: string }): Promise<UploadedFile> {
  if (!isMultipart(req)) throw new AppError('unsupported_media_type', `Send ${options.what} as multipart/form-data with a file part named "${options.field}"`);
  let found: UploadedFile | undefined;
  try {
    const parts = await readForm(req, { fileSize: options.maxBytes, files: 1, fields: 10, fieldSize: 1024, parts: 11, headerPairs: 50 });
    const file = parts.find((part) => part.kind === 'file' && part.name === options.field);
    if (file?.kind === 'file') found = { data: file.data, filename: file.filename, declaredType: file.mimetype };
  } catch (err) {
    if (!(err instanceof FormLimitError)) throw AppError.badRequest('Malformed multipart/form-data body');
    if (err.limit === 'fileSize') throw new AppError('payload_too_large', `${capitalize(options.what)} is larger than ${formatBytes(options.maxBytes)}`);
    throw new AppError('payload_too_large', `Send one file part named "${options.field}" and nothing more`);
  }
  if (!found) throw new AppError('validation_failed', 'Invalid body', { details: [{ field: options.field, message: `Required: ${options.what} as a file part` }] });
  return found;
}

export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
