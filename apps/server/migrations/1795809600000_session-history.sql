-- Up Migration

-- Ended sessions, written from Redis's history queue by the history writer (src/workers/history-writer.ts),
-- once each: a later change of an ended session (its transcript_ready) rewrites its row. Partitioned by
-- creation day (src/store/postgres/partitions.ts makes each day's partition and drops it after the
-- retention); account_id leads every key, the column a distributed PostgreSQL (Citus) would shard by.
CREATE TABLE sessions (
  account_id text NOT NULL,
  created_at timestamptz NOT NULL,
  id uuid NOT NULL,
  status text NOT NULL,
  ended_at timestamptz NOT NULL,
  -- The stored session as Redis holds it (src/store/session-format.ts), its id aside.
  record jsonb NOT NULL,
  written_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, created_at, id)
) PARTITION BY RANGE (created_at);

-- getSession finds a session by its id alone (the account is checked on the row).
CREATE INDEX sessions_by_id ON sessions (id);
-- listSessions with a status: newest first within the account's sessions of that status.
CREATE INDEX sessions_by_status ON sessions (account_id, status, created_at, id);

-- Down Migration
DROP TABLE sessions;
