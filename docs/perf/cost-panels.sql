-- The cost panels' queries at a million ledger rows (docs/billing.md "Cost panels").
-- Run against a scratch database:
--   createdb -h 127.0.0.1 -U postgres cos_cost_plans
--   psql -h 127.0.0.1 -U postgres -d cos_cost_plans -f docs/perf/cost-panels.sql
--   dropdb -h 127.0.0.1 -U postgres cos_cost_plans
-- The tables and indexes are those of drizzle/0007_conversations.sql and drizzle/0010_billing.sql.
\timing on
SET client_min_messages = warning;
DROP TABLE IF EXISTS llm_runs, llm_cost_daily;
CREATE TABLE llm_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(), org_id uuid NOT NULL, osa_id uuid, conversation_id uuid, message_id uuid,
  purpose text NOT NULL, provider text NOT NULL, model text NOT NULL, input_tokens integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0, cost_micro_usd bigint NOT NULL DEFAULT 0, latency_ms integer NOT NULL DEFAULT 0,
  outcome text NOT NULL, error text, created_at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE INDEX llm_runs_org_created_idx ON llm_runs (org_id, created_at);
CREATE INDEX llm_runs_osa_created_idx ON llm_runs (osa_id, created_at);
CREATE INDEX llm_runs_created_idx ON llm_runs (created_at);
CREATE TABLE llm_cost_daily (day date NOT NULL, org_id uuid NOT NULL, osa_id uuid, purpose text NOT NULL, cost_micro_usd bigint NOT NULL,
  input_tokens bigint NOT NULL, output_tokens bigint NOT NULL, calls integer NOT NULL, errors integer NOT NULL);
CREATE INDEX llm_cost_daily_day_idx ON llm_cost_daily (day);
CREATE INDEX llm_cost_daily_org_day_idx ON llm_cost_daily (org_id, day);

-- 1,000,000 calls over 90 days: 200 orgs, 2 OSAs each, 2 purposes.
INSERT INTO llm_runs (org_id, osa_id, purpose, provider, model, input_tokens, output_tokens, cost_micro_usd, outcome, created_at)
SELECT md5('org' || (i % 200))::uuid, md5('osa' || (i % 400))::uuid, CASE WHEN i % 7 = 0 THEN 'summarize' ELSE 'chat-hermes' END,
       'openai', 'gpt-4o-mini', 800 + i % 400, 150 + i % 90, 200 + i % 900, CASE WHEN i % 50 = 0 THEN 'error' ELSE 'ok' END,
       date_trunc('day', now()) - interval '89 days' + (i::double precision / 1000000) * interval '90 days'
FROM generate_series(1, 1000000) AS i;
ANALYZE llm_runs;

-- The rollup of one closed day (what CostsService.rollupDay runs, once per day).
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT org_id, osa_id, purpose, sum(cost_micro_usd), sum(input_tokens), sum(output_tokens), count(*), count(*) FILTER (WHERE outcome = 'error')
FROM llm_runs WHERE created_at >= date_trunc('day', now()) - interval '1 day' AND created_at < date_trunc('day', now())
GROUP BY org_id, osa_id, purpose;

-- Roll up all 89 closed days at once (the first run's backfill, here in one statement).
INSERT INTO llm_cost_daily
SELECT (created_at AT TIME ZONE 'UTC')::date, org_id, osa_id, purpose, sum(cost_micro_usd), sum(input_tokens), sum(output_tokens), count(*), count(*) FILTER (WHERE outcome = 'error')
FROM llm_runs WHERE created_at < date_trunc('day', now()) GROUP BY 1, 2, 3, 4;
ANALYZE llm_cost_daily;
SELECT count(*) AS rollup_rows FROM llm_cost_daily;

-- Platform panel, 30 days: trend, top orgs, by OSA (folded into Specialists), by purpose, from the rollup.
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT day::text, sum(cost_micro_usd), sum(calls) FROM llm_cost_daily WHERE day >= current_date - 29 AND day <= current_date - 1 GROUP BY day;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT org_id::text, sum(cost_micro_usd), sum(calls) FROM llm_cost_daily WHERE day >= current_date - 29 AND day <= current_date - 1 GROUP BY org_id;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT osa_id::text, sum(cost_micro_usd), sum(calls) FROM llm_cost_daily WHERE day >= current_date - 29 AND day <= current_date - 1 GROUP BY osa_id;
-- ...plus today, live from the ledger's created_at index.
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT org_id, osa_id, purpose, sum(cost_micro_usd), count(*) FROM llm_runs WHERE created_at >= date_trunc('day', now()) AND created_at < date_trunc('day', now()) + interval '1 day' GROUP BY org_id, osa_id, purpose;

-- One org's panel, 30 days, from the rollup.
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT osa_id::text, sum(cost_micro_usd), sum(calls) FROM llm_cost_daily WHERE day >= current_date - 29 AND day <= current_date - 1 AND org_id = md5('org7')::uuid GROUP BY osa_id;

-- For comparison: the same 30-day platform panel straight from the ledger, without the rollup.
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT org_id, sum(cost_micro_usd), count(*) FROM llm_runs WHERE created_at >= date_trunc('day', now()) - interval '29 days' GROUP BY org_id;
