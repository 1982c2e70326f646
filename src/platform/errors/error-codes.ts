/** One map from error code to HTTP status and the `error` word of the body (API-MAP.md "Conventions"). */
export const ERROR_CODES = {
  validation_failed: { status: 400, error: 'Bad Request' },
  bad_request: { status: 400, error: 'Bad Request' },
  unauthorized: { status: 401, error: 'Unauthorized' },
  totp_required: { status: 401, error: 'Unauthorized' },
  forbidden: { status: 403, error: 'Forbidden' },
  org_suspended: { status: 403, error: 'Forbidden' },
  not_found: { status: 404, error: 'Not Found' },
  method_not_allowed: { status: 405, error: 'Method Not Allowed' },
  request_timeout: { status: 408, error: 'Request Timeout' },
  conflict: { status: 409, error: 'Conflict' },
  phase0_gate_failed: { status: 409, error: 'Conflict' },
  invite_expired: { status: 410, error: 'Gone' },
  invite_used: { status: 410, error: 'Gone' },
  payload_too_large: { status: 413, error: 'Payload Too Large' },
  unsupported_media_type: { status: 415, error: 'Unsupported Media Type' },
  headers_too_large: { status: 431, error: 'Request Header Fields Too Large' },
  rate_limit: { status: 429, error: 'ThrottlerException' },
  internal_error: { status: 500, error: 'Internal Server Error' },
  backpressure: { status: 503, error: 'ServiceUnavailable' },
  service_unavailable: { status: 503, error: 'Service Unavailable' },
} as const satisfies Record<string, { status: number; error: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
