import { Inject, Injectable } from '@nestjs/common';
import { billingConfig, type BillingConfig } from './billing.config.js';
import { dayStart } from './proration.js';

/** The tracing tool's API answers only browser-like clients (spec 5.9). */
export const TRACING_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const TIMEOUT_MS = 15_000;

/**
 * The external tracing tool, read for the nightly cost reconciliation (analytics only: the ledger
 * is authoritative). HTTP Basic with the public/secret key pair, a browser-like User-Agent;
 * `GET <TRACING_BASE_URL>/api/public/metrics/daily?fromTimestamp=&toTimestamp=` answers
 * `{ data: [{ date: 'YYYY-MM-DD', totalCost: <USD> }] }`.
 */
@Injectable()
export class TracingClient {
  constructor(@Inject(billingConfig.token) private readonly config: BillingConfig) {}

  get configured(): boolean {
    const t = this.config.tracing;
    return Boolean(t.baseUrl && t.publicKey && t.secretKey);
  }

  /** The tool's total cost of one UTC day, in micro-USD. */
  async dayCostMicroUsd(day: string): Promise<number> {
    const { baseUrl, publicKey, secretKey } = this.config.tracing;
    if (!this.configured) throw new Error('tracing is not configured');
    const from = dayStart(day);
    const to = new Date(from.getTime() + 86_400_000);
    const url = `${baseUrl}/api/public/metrics/daily?fromTimestamp=${encodeURIComponent(from.toISOString())}&toTimestamp=${encodeURIComponent(to.toISOString())}`;
    const res = await fetch(url, {
      headers: {
        authorization: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString('base64')}`,
        'user-agent': TRACING_USER_AGENT,
        accept: 'application/json',
      },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`tracing answered HTTP ${res.status}`);
    const body = (await res.json()) as { data?: Array<{ date?: string; totalCost?: number }> };
    const usd = (body.data ?? []).filter((d) => d.date === day).reduce((n, d) => n + (Number(d.totalCost) || 0), 0);
    return Math.round(usd * 1_000_000);
  }
}
