import { Injectable } from '@nestjs/common';
import { Clock } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { EventBus } from '../../platform/events/event-bus.js';
import { logger } from '../../platform/observability/logger.js';
import { UsersService } from '../users/index.js';
import { BillingRepository } from './billing.repository.js';
import type { CostReconciliationRow } from './billing.tables.js';
import { CostsService } from './costs.service.js';
import { addDays, dayOf } from './proration.js';
import { TracingClient } from './tracing.client.js';

/** Spec 8: drift over 5 percent or over 1 USD in a day is alerted (and nothing else happens). */
export const DRIFT_PERCENT = 5;
export const DRIFT_MICRO_USD = 1_000_000;

export function driftOf(ledgerMicroUsd: number, tracingMicroUsd: number): { driftMicroUsd: number; driftPercent: number; alert: boolean } {
  const driftMicroUsd = Math.abs(ledgerMicroUsd - tracingMicroUsd);
  const driftPercent = ledgerMicroUsd > 0 ? (driftMicroUsd / ledgerMicroUsd) * 100 : tracingMicroUsd > 0 ? 100 : 0;
  return { driftMicroUsd, driftPercent, alert: driftMicroUsd > DRIFT_MICRO_USD || driftPercent > DRIFT_PERCENT };
}

/**
 * The nightly reconciliation (spec 8.1): yesterday's ledger total against the tracing tool's. The
 * ledger stays authoritative; a drift only creates a `billing.cost_drift` notification for the
 * superadmins, once per day.
 */
@Injectable()
export class ReconciliationService {
  constructor(
    private readonly repo: BillingRepository,
    private readonly costs: CostsService,
    private readonly tracing: TracingClient,
    private readonly users: UsersService,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    private readonly dbService: DbService,
  ) {}

  /** The last day checked, for the platform cost panel. */
  async latest() {
    const rec = await this.repo.latestReconciliation();
    if (!rec) return null;
    return {
      day: rec.day,
      ledgerMicroUsd: rec.ledgerMicroUsd,
      tracingMicroUsd: rec.tracingMicroUsd,
      driftMicroUsd: rec.driftMicroUsd,
      driftPercent: rec.driftPercent,
      alerted: rec.alerted,
      checkedAt: rec.checkedAt.toISOString(),
    };
  }

  async reconcile(day: string = addDays(dayOf(this.clock.now()), -1)): Promise<CostReconciliationRow | null> {
    if (!this.tracing.configured) return null;
    const ledgerMicroUsd = await this.costs.dayTotalMicroUsd(day);
    const previous = await this.repo.findReconciliation(day);
    let tracingMicroUsd: number;
    try {
      tracingMicroUsd = await this.tracing.dayCostMicroUsd(day);
    } catch (err) {
      logger.warn({ err: (err as Error).message, day }, 'cost reconciliation: the tracing tool did not answer');
      await this.repo.saveReconciliation({ day, ledgerMicroUsd, tracingMicroUsd: null, driftMicroUsd: null, driftPercent: null, alerted: previous?.alerted ?? false, error: (err as Error).message });
      return (await this.repo.findReconciliation(day))!;
    }
    const drift = driftOf(ledgerMicroUsd, tracingMicroUsd);
    const alertNow = drift.alert && !previous?.alerted;
    // The alert is owed once the day is saved as alerted: both commit together, and the queue
    // delivers the notices whatever becomes of this process after the commit.
    await this.dbService.transaction(async () => {
      await this.repo.saveReconciliation({
        day,
        ledgerMicroUsd,
        tracingMicroUsd,
        driftMicroUsd: drift.driftMicroUsd,
        driftPercent: drift.driftPercent,
        alerted: drift.alert || (previous?.alerted ?? false),
        error: null,
      });
      if (!alertNow) return;
      const superadmins = (await this.users.listByRole('superadmin')).filter((u) => u.status === 'active').map((u) => u.id);
      const usd = (m: number) => (m / 1_000_000).toFixed(2);
      const notice = {
        type: 'billing.cost_drift',
        title: 'LLM cost drift',
        message: `${day}: the ledger says ${usd(ledgerMicroUsd)} USD, the tracing tool ${usd(tracingMicroUsd)} USD (${drift.driftPercent.toFixed(1)} % apart). The ledger stays authoritative.`,
        meta: { day, ledgerMicroUsd, tracingMicroUsd, driftMicroUsd: drift.driftMicroUsd, driftPercent: drift.driftPercent },
      };
      for (const userId of new Set(superadmins)) await this.bus.emitDurable('notifications.owed', { userId, notice });
    });
    return (await this.repo.findReconciliation(day))!;
  }
}
