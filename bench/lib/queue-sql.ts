/**
 * The attention-list SELECTs of the baseline (`baselines/fastify-expert-queue.ts`), here so that
 * the bench can record the plan of the very statement the baseline runs.
 */

/** The newest 50 items of every org (an org-wide role). */
export const QUEUE_ALL_ORGS_SQL = 'select * from queue_items order by updated_at desc, id desc limit 50';

/** The newest 50 items of the orgs of an Expert's grants (`$1`: the Expert's id), in one statement. */
export const QUEUE_GRANTED_ORGS_SQL =
  'select * from queue_items where org_id = any(array(select g.org_id from expert_grants g where g.expert_id = $1)) ' + 'order by updated_at desc, id desc limit 50';
