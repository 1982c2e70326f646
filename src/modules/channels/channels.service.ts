import { Injectable } from '@nestjs/common';
import { CHANNEL_NAMES, type ChannelDelivery } from '../../contracts/channels.js';
import { systemNow } from '../../platform/clock/clock.js';
import { decodeCursor, pageOf } from '../../platform/http/pagination.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';
import { OrgsService } from '../orgs/index.js';
import { ChannelsRepository } from './channels.repository.js';
import { OutboundService } from './outbound.service.js';

const RECENT_MS = 24 * 3600_000;
const PREVIEW_CHARS = 300;

/**
 * How replies are getting out: `failing` when the newest reply that finished was given up on after
 * its attempts (until a later one is sent), `retrying` when replies wait for a retry after an
 * error, else `ok`.
 */
export function deliveryOf(stats: { lastFinished: string | null; retrying: number } | undefined): ChannelDelivery {
  if (stats?.lastFinished === 'failed') return 'failing';
  return stats && stats.retrying > 0 ? 'retrying' : 'ok';
}

/** Channel health and the quarantine, for the org's settings and for ops. */
@Injectable()
export class ChannelsService {
  constructor(
    private readonly repo: ChannelsRepository,
    private readonly outbound: OutboundService,
    private readonly orgs: OrgsService,
  ) {}

  async requireOrg(orgId: string): Promise<void> {
    await this.orgs.get(orgId);
  }

  async health(scope: OrgScope) {
    await this.requireOrg(scope.orgId);
    const since = new Date(systemNow().getTime() - RECENT_MS);
    const [integrations, lastInbound, quarantined, outbound] = await Promise.all([
      this.repo.listIntegrations(scope),
      this.repo.lastInbound(scope),
      this.repo.recentQuarantined(scope, since),
      this.repo.outboundStats(scope, since),
    ]);
    return CHANNEL_NAMES.map((channel) => {
      const out = outbound.find((o) => o.channel === channel);
      const integration = integrations.find((i) => i.channel === channel);
      return {
        channel,
        // Email needs no integration: a Specialist's workspace address receives it.
        connected: channel === 'email' ? true : Boolean(integration?.enabled),
        lastInboundAt: lastInbound.get(channel)?.toISOString() ?? null,
        lastOutboundAt: out?.lastSentAt?.toISOString() ?? null,
        breaker: this.outbound.breakerState(channel),
        recentFailures: out?.failures ?? 0,
        recentQuarantined: quarantined.get(channel) ?? 0,
        lastError: out?.lastError ?? null,
        delivery: deliveryOf(out),
      };
    });
  }

  async quarantined(query: { orgId?: string; limit: number; cursor?: string }) {
    const rows = await this.repo.unscopedListEvents({ status: 'quarantined', orgId: query.orgId }, { limit: query.limit, after: decodeCursor(query.cursor) });
    return pageOf(
      rows,
      query.limit,
      (r) => ({ at: r.receivedAt, id: r.id }),
      (r) => ({
        id: r.id,
        channel: r.channel,
        status: r.status,
        reason: r.reason,
        orgId: r.orgId,
        receivedAt: r.receivedAt.toISOString(),
        processedAt: r.processedAt?.toISOString() ?? null,
        preview: r.body.slice(0, PREVIEW_CHARS),
      }),
    );
  }
}
