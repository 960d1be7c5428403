import foundation from './001-foundation.js';
import launches from './002-launches.js';
import runs from './003-runs.js';
import control from './004-control.js';
import logRetention from './005-log-retention.js';
import assets from './006-assets.js';
import webhooks from './007-webhooks.js';
import levers from './008-levers.js';
import keyedOperations from './009-keyed-operations.js';
import connections from './010-connections.js';
import tenantCursorKeys from './011-tenant-cursor-keys.js';
import numberingPerWorkload from './012-numbering-per-workload.js';
import workloadRules from './013-workload-rules.js';
import journalHeaders from './014-journal-headers.js';

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Applied in order, each in its own transaction; never edit one that has shipped. */
export const MIGRATIONS: Migration[] = [foundation, launches, runs, control, logRetention, assets, webhooks, levers, keyedOperations, connections, tenantCursorKeys,
  numberingPerWorkload, workloadRules, journalHeaders];
