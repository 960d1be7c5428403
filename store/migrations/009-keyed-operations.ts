export default {
  version: 9,
  name: 'keyed-operations',
  sql: `
    -- Keys are scoped to the domain's operation, not to an HTTP route, and a record keeps only the
    -- workload it admitted: the answer is rebuilt from it, so the status and body it was first
    -- sent with are the HTTP layer's to produce, not the store's to remember.
    UPDATE idempotency_keys SET scope = CASE scope
      WHEN 'POST /v1/rl-runs' THEN 'rl_run.launch'
      WHEN 'POST /v1/workloads' THEN 'workload.submit'
      WHEN 'POST /v1/rl-environments/{environment}/examples/{example}/runs' THEN 'example.run'
      ELSE scope END;
    DELETE FROM idempotency_keys WHERE workload_id IS NULL;
    ALTER TABLE idempotency_keys DROP COLUMN status;
    ALTER TABLE idempotency_keys DROP COLUMN body;
  `,
};
