import type { ChannelHealthSchema, ClientSpecialist, CreateIntegrationInput, InboundEventDtoSchema, IntegrationDto, PageOf, UpdateIntegrationInput, WebhookUrlsSchema } from '@contracts';
import type { z } from 'zod';
import { apiFetch, fetchItems } from '../api/client';

export type { ClientSpecialist };

export type ChannelHealth = z.infer<typeof ChannelHealthSchema>;
export type WebhookUrls = z.infer<typeof WebhookUrlsSchema>;
export type InboundEventDto = z.infer<typeof InboundEventDtoSchema>;

const org = (orgId: string) => `/orgs/${encodeURIComponent(orgId)}`;
const integration = (orgId: string, id: string) => `${org(orgId)}/integrations/${encodeURIComponent(id)}`;

/** Channel integrations, health and webhook URLs of an org (spec 4.6), and the ops quarantine. */
export const channelsApi = {
  integrations: (orgId: string, signal?: AbortSignal) => fetchItems<IntegrationDto>(`${org(orgId)}/integrations`, { signal }),
  connect: (orgId: string, body: CreateIntegrationInput) => apiFetch<IntegrationDto>(`${org(orgId)}/integrations`, { method: 'POST', body }),
  update: (orgId: string, id: string, body: UpdateIntegrationInput) => apiFetch<IntegrationDto>(integration(orgId, id), { method: 'PATCH', body }),
  disconnect: (orgId: string, id: string) => apiFetch<void>(integration(orgId, id), { method: 'DELETE' }),
  /** Staff only (account_manager, superadmin): the binding routes from now on. */
  verify: (orgId: string, id: string) => apiFetch<void>(`${integration(orgId, id)}/verify`, { method: 'POST' }),
  status: (orgId: string, signal?: AbortSignal) => fetchItems<ChannelHealth>(`${org(orgId)}/channels/status`, { signal }),
  webhookUrls: (orgId: string, signal?: AbortSignal) => apiFetch<WebhookUrls>(`${org(orgId)}/channels/webhook-urls`, { signal }),
  specialists: (orgId: string, signal?: AbortSignal) => fetchItems<ClientSpecialist>('/client/specialists', { query: { orgId }, signal }),
  quarantine: (query: { orgId?: string; limit: number; cursor?: string }, signal?: AbortSignal) => apiFetch<PageOf<InboundEventDto>>('/ops/channels/quarantine', { query, signal }),
};

/** Everything of one org lives under `channelKeys.org(id)`, so one invalidation refreshes it all. */
export const channelKeys = {
  org: (orgId: string) => ['channels', 'org', orgId] as const,
  integrations: (orgId: string) => ['channels', 'org', orgId, 'integrations'] as const,
  status: (orgId: string) => ['channels', 'org', orgId, 'status'] as const,
  webhookUrls: (orgId: string) => ['channels', 'org', orgId, 'webhook-urls'] as const,
  specialists: (orgId: string) => ['channels', 'org', orgId, 'specialists'] as const,
  quarantine: (orgId: string | undefined) => ['channels', 'quarantine', orgId ?? null] as const,
  /** The org choices of the quarantine's filter. */
  orgOptions: ['channels', 'org-options'] as const,
};
