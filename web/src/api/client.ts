import { ErrorBodySchema, FieldErrorSchema, type ErrorBody } from '@contracts';
import { tokenStore } from './token';

/** An API answer other than 2xx, carrying the error body of API-MAP.md "Conventions". */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly error: string;
  readonly details: unknown;

  constructor(body: ErrorBody) {
    super(body.message);
    this.name = 'ApiError';
    this.statusCode = body.statusCode;
    this.code = body.code;
    this.error = body.error;
    this.details = body.details;
  }
}

type Query = Record<string, string | number | undefined>;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  /** A multipart body (an upload): sent as is, the browser sets its Content-Type and boundary. */
  form?: FormData;
  query?: Query;
  signal?: AbortSignal;
  /** Extra request headers (`Idempotency-Key`, an `Accept` other than JSON). */
  headers?: Record<string, string>;
}

function buildUrl(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const search = params.toString();
  return `/api${path}${search ? `?${search}` : ''}`;
}

async function readErrorBody(response: Response): Promise<ErrorBody> {
  const parsed = ErrorBodySchema.safeParse(await response.json().catch(() => null));
  if (parsed.success) return parsed.data;
  return {
    statusCode: response.status,
    code: 'http_error',
    error: response.statusText,
    message: `The request failed (HTTP ${response.status}).`,
  };
}

/** The 2xx answer itself, for a body read as it arrives (a stream); any other answer throws its ApiError. */
export async function apiResponse(path: string, options: RequestOptions = {}): Promise<Response> {
  const token = tokenStore.get();
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (options.body !== undefined && !options.form) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;

  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body: options.form ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
      signal: options.signal,
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new ApiError({
      statusCode: 0,
      code: 'network_error',
      error: 'NetworkError',
      message: 'The server could not be reached. Check your connection and try again.',
    });
  }

  if (!response.ok) {
    const body = await readErrorBody(response);
    // A refused token (expired, revoked) ends the session; the route guards then send the user to /login.
    // Unless a newer token replaced it meanwhile (a password change answers one), or is on its way.
    if (response.status === 401 && token && tokenStore.get() === token && !tokenStore.isHandingOver(token)) tokenStore.clear();
    throw new ApiError(body);
  }
  return response;
}

export async function apiFetch<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await apiResponse(path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** The items of a list that always answers one page (`{ items, nextCursor: null }`, API-MAP "Conventions"). */
export async function fetchItems<T>(path: string, options: RequestOptions = {}): Promise<T[]> {
  return (await apiFetch<{ items: T[] }>(path, options)).items;
}

/** Every item of a keyset-paginated list, following `nextCursor` page after page (for pickers that show it all). */
export async function fetchAllPages<T>(path: string, options: RequestOptions = {}): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await apiFetch<{ items: T[]; nextCursor: string | null }>(path, { ...options, query: { ...options.query, limit: 200, cursor } });
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

/** Field messages of a 400 `validation_failed`, keyed by the last segment of each field path. */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || error.code !== 'validation_failed' || !Array.isArray(error.details)) return {};
  const errors: Record<string, string> = {};
  for (const item of error.details) {
    const parsed = FieldErrorSchema.safeParse(item);
    if (!parsed.success) continue;
    const field = parsed.data.field.split('.').pop() ?? parsed.data.field;
    errors[field] ??= parsed.data.message;
  }
  return errors;
}

/** The message to show in an alert: nothing when every problem is shown beside its field. */
export function formErrorOf(error: unknown, shownFields: readonly string[]): string | null {
  if (!error) return null;
  const fields = fieldErrorsOf(error);
  const unshown = Object.keys(fields).filter((field) => !shownFields.includes(field));
  if (Object.keys(fields).length > 0 && unshown.length === 0) return null;
  if (unshown.length > 0) return unshown.map((field) => `${field}: ${fields[field]}`).join('; ');
  return error instanceof Error ? error.message : 'Something went wrong.';
}
