export default {
  version: 14,
  name: 'journal-headers',
  sql: `
    -- A journal row says which API the request was to (a test's own /_mock calls are journaled
    -- too) and the headers a test may assert on, as a JSON object; rows written before carry none.
    ALTER TABLE request_journal ADD COLUMN kind TEXT NOT NULL DEFAULT 'api' CHECK (kind IN ('api', 'control'));
    ALTER TABLE request_journal ADD COLUMN headers TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE request_journal ADD COLUMN headers_truncated INTEGER NOT NULL DEFAULT 0;
    -- How many rows the ring evicted since the journal was last emptied, so a reader can tell a
    -- whole history from a trimmed one.
    ALTER TABLE journal_numbers ADD COLUMN evicted INTEGER NOT NULL DEFAULT 0;
  `,
};
