import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { CHANNEL_NAMES, type ChannelName } from '../../contracts/channels.js';
import { logger } from '../../platform/observability/logger.js';
import { Metrics } from '../../platform/observability/metrics.js';
import { ChannelsRepository } from './channels.repository.js';
import type { BreakerState } from './outbound.service.js';

/** The breaker gauge's values: ordered by how little gets through. */
const BREAKER_VALUES: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

/** A reason as a label value: the parsers' and the worker's fixed words, never free text (it would grow the series without bound). */
const reasonLabel = (reason: string | undefined) => (reason === undefined ? '' : /^[a-z][a-z_]{0,39}$/.test(reason) ? reason : 'other');

/**
 * How an outbound send ended: a failure with attempts left is `retried`, the last one `failed`;
 * a call the open circuit breaker refused is `deferred` (no attempt: the row waits for the breaker).
 */
export type OutboundOutcome = 'sent' | 'retried' | 'failed' | 'deferred';

/**
 * Prometheus metrics of the channels, per channel (docs/channels.md "Metrics"), on the instance's
 * registry. Counters count what this instance did; the queue depth is the deployment's (one
 * grouped query per scrape over the open-events index); the breaker state is this instance's.
 */
@Injectable()
export class ChannelMetrics {
  private readonly inboundAccepted: Counter<'channel'>;
  private readonly inboundOutcomes: Counter<'channel' | 'outcome' | 'reason'>;
  private readonly outboundOutcomes: Counter<'channel' | 'outcome'>;
  private breakerStateOf?: (channel: ChannelName) => BreakerState;

  constructor(metrics: Metrics, repo: ChannelsRepository) {
    const registers = [metrics.registry];
    this.inboundAccepted = new Counter({
      name: 'channel_inbound_accepted_total',
      help: 'Verified webhook calls kept in the inbound queue (a redelivery of a kept event is not counted), by channel',
      labelNames: ['channel'],
      registers,
    });
    this.inboundOutcomes = new Counter({
      name: 'channel_inbound_events_total',
      help: 'Inbound events the worker finished, by channel and outcome (processed, ignored, quarantined, failed; retried when a retry follows); reason: the quarantine or ignore reason',
      labelNames: ['channel', 'outcome', 'reason'],
      registers,
    });
    this.outboundOutcomes = new Counter({
      name: 'channel_outbound_sends_total',
      help: 'Outbound sends, by channel and outcome (sent; retried: failed with attempts left; failed: the last attempt failed; deferred: refused by the open circuit breaker, not an attempt)',
      labelNames: ['channel', 'outcome'],
      registers,
    });
    new Gauge({
      name: 'channel_inbound_queue_depth',
      help: 'Inbound events accepted and not finished, by channel and status (queued, processing); the same for every instance of a deployment',
      labelNames: ['channel', 'status'],
      registers,
      async collect() {
        try {
          const depth = await repo.unscopedOpenDepthByChannel();
          this.reset();
          for (const channel of CHANNEL_NAMES) for (const status of ['queued', 'processing'] as const) this.set({ channel, status }, 0);
          for (const row of depth) this.set({ channel: row.channel, status: row.status }, row.n);
        } catch (err) {
          // A scrape while the database is away still answers the other metrics; the depth goes stale.
          logger.warn({ err }, 'channel queue depth not read for the metrics');
        }
      },
    });
    const breakerState = () => this.breakerStateOf;
    new Gauge({
      name: 'channel_outbound_breaker_state',
      help: "State of this instance's outbound circuit breaker per channel: 0 closed, 1 half-open, 2 open",
      labelNames: ['channel'],
      registers,
      collect() {
        const read = breakerState();
        if (!read) return;
        for (const channel of CHANNEL_NAMES) this.set({ channel }, BREAKER_VALUES[read(channel)]);
      },
    });
    // Every channel's series from the start, so a rate over the first event is not lost.
    for (const channel of CHANNEL_NAMES) {
      this.inboundAccepted.inc({ channel }, 0);
      for (const outcome of ['sent', 'retried', 'failed', 'deferred'] as const) this.outboundOutcomes.inc({ channel, outcome }, 0);
    }
  }

  /** Reads the breakers at each scrape (the outbound service owns them). */
  watchBreakers(state: (channel: ChannelName) => BreakerState): void {
    this.breakerStateOf = state;
  }

  accepted(channel: ChannelName): void {
    this.inboundAccepted.inc({ channel });
  }

  /** An event the worker finished: a stored outcome (`done` counts as processed), or a failure. */
  finished(channel: ChannelName, outcome: { status: 'done' | 'ignored' | 'quarantined'; reason?: string } | 'failed' | 'retried'): void {
    if (typeof outcome === 'string') this.inboundOutcomes.inc({ channel, outcome, reason: '' });
    else this.inboundOutcomes.inc({ channel, outcome: outcome.status === 'done' ? 'processed' : outcome.status, reason: reasonLabel(outcome.reason) });
  }

  sent(channel: ChannelName, outcome: OutboundOutcome): void {
    this.outboundOutcomes.inc({ channel, outcome });
  }
}
