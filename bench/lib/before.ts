/**
 * The figures of the previous committed run (bench/results/latest.md), shown as "before" beside
 * this run's in the targets table. Keyed by the ratio's name and metric as run.ts names them.
 * Update it with the figures of the committed run when committing a new one.
 */
export const BEFORE: { run: string; values: Record<string, number> } = {
  run: "the run committed before issue 20 (2026-11-22, commit 3be84a1; the start time: the issue's figure before scripts/start.mjs)",
  values: {
    'health / bare fastify req/s': 0.24,
    'auth/me / jose+pg req/s': 0.65,
    'POST notifications / select+insert req/s': 0.64,
    'POST notifications / select+insert p99': 1.5,
    'GET notifications +1M others / 1k p99': 1.11,
    'POST messages / message+reply req/s': 0.12,
    'POST messages / message+reply p99': 9.28,
    'expert-queue (expert) / select req/s': 0.26,
    'expert-queue (expert) / select p99': 5.32,
    'expert-queue (superadmin) / select req/s': 0.26,
    'expert-queue (superadmin) / select p99': 5.75,
    'chat-a accepted / HMAC+insert req/s': 0.31,
    'chat-a accepted / HMAC+insert p99': 4.86,
    // 163.6 events/s on 3 instances against 541.8 on one (0.09 and 0.31 of the baseline).
    'chat-a accepted, 3 instances / 1 req/s': 0.3,
    'npm start ready on a previous DATA_DIR (median) s': 49,
    'memory per idle socket kB': 15,
  },
};

/** The "before" of a ratio or figure, or null when the previous run had none. */
export const beforeOf = (name: string, metric: string): number | null => BEFORE.values[`${name} ${metric}`] ?? null;
