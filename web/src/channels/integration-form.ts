import { CreateIntegrationSchema, UpdateIntegrationSchema, type ChannelName, type CreateIntegrationInput, type IntegrationDto, type UpdateIntegrationInput } from '@contracts';
import { zodFieldErrors, type FieldErrors } from '../ops/errors';
import type { IntegrationFields } from './channel-info';

/** The form of one channel's integration; secrets start empty (they are write-only). */
export interface IntegrationFormValues {
  externalId: string;
  config: Record<string, string | string[]>;
  secrets: Record<string, string>;
  enabled: boolean;
}

/** The form keys: `externalId`, `config.<key>`, `secrets.<key>`. */
export const configKey = (key: string) => `config.${key}`;
export const secretKey = (key: string) => `secrets.${key}`;

export function initialValues(fields: IntegrationFields, integration: IntegrationDto | undefined): IntegrationFormValues {
  const config: IntegrationFormValues['config'] = {};
  for (const field of fields.config) {
    const stored = integration?.config[field.key];
    config[field.key] = field.kind === 'numbers' ? (Array.isArray(stored) ? stored.map(String) : []) : typeof stored === 'string' ? stored : '';
  }
  return {
    externalId: integration?.externalId ?? '',
    config,
    secrets: Object.fromEntries(fields.secrets.map((field) => [field.key, ''])),
    enabled: integration?.enabled ?? true,
  };
}

function configOf(fields: IntegrationFields, values: IntegrationFormValues, stored: Record<string, unknown>): Record<string, unknown> {
  // A PATCH replaces the whole config: keys this form does not show are kept as they are.
  const config: Record<string, unknown> = { ...stored };
  for (const field of fields.config) {
    const value = values.config[field.key];
    const cleaned = Array.isArray(value) ? value.map((v) => v.trim()).filter(Boolean) : (value ?? '').trim();
    if (cleaned.length === 0) delete config[field.key];
    else config[field.key] = cleaned;
  }
  return config;
}

/** Only the secrets typed in: an empty input keeps the stored value. */
function secretsOf(values: IntegrationFormValues): Record<string, string> | undefined {
  const entries = Object.entries(values.secrets).filter(([, value]) => value !== '');
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

export function toCreateBody(channel: ChannelName, fields: IntegrationFields, values: IntegrationFormValues): CreateIntegrationInput {
  const externalId = values.externalId.trim();
  return {
    channel,
    ...(fields.externalId && externalId ? { externalId } : {}),
    config: configOf(fields, values, {}),
    ...(secretsOf(values) ? { secrets: secretsOf(values) } : {}),
    enabled: values.enabled,
  };
}

export function toUpdateBody(fields: IntegrationFields, values: IntegrationFormValues, integration: IntegrationDto): UpdateIntegrationInput {
  const externalId = values.externalId.trim();
  return {
    ...(fields.externalId && externalId ? { externalId } : {}),
    config: configOf(fields, values, integration.config),
    ...(secretsOf(values) ? { secrets: secretsOf(values) } : {}),
    enabled: values.enabled,
  };
}

/** The form key a field path of the API or of the contract schema belongs to (`config.whitelist.1`). */
export function formKeyOf(path: string): string {
  const [head, key] = path.split('.');
  return head === 'config' || head === 'secrets' ? `${head}.${key ?? ''}` : (head ?? path);
}

/** Keys the errors by form key (the first message of each wins). */
export function byFormKey(errors: FieldErrors): FieldErrors {
  const keyed: FieldErrors = {};
  for (const [path, message] of Object.entries(errors)) keyed[formKeyOf(path)] ??= message;
  return keyed;
}

/** Required fields (a stored secret counts as given), then the contract's own rules. */
export function validate(fields: IntegrationFields, values: IntegrationFormValues, body: CreateIntegrationInput | UpdateIntegrationInput, integration?: IntegrationDto): FieldErrors {
  const errors: FieldErrors = {};
  if (fields.externalId?.required && !values.externalId.trim()) errors.externalId = 'Required';
  for (const field of fields.config) {
    const value = values.config[field.key];
    if (field.required && (Array.isArray(value) ? value.length === 0 : !value?.trim())) errors[configKey(field.key)] = 'Required';
  }
  for (const field of fields.secrets) {
    const stored = integration?.secretNames.includes(field.key) ?? false;
    if (field.required && !stored && !values.secrets[field.key]) errors[secretKey(field.key)] = 'Required';
  }
  const parsed = 'channel' in body ? CreateIntegrationSchema.safeParse(body) : UpdateIntegrationSchema.safeParse(body);
  if (!parsed.success) for (const [key, message] of Object.entries(byFormKey(zodFieldErrors(parsed.error)))) errors[key] ??= message;
  return errors;
}
