-- Up Migration

-- Ended sessions and their transcripts, written from Redis's history queue by the history writer (src/workers/history-writer.ts),
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
  -- Its transcript's state (its segments are transcript_segments' rows).
  transcript_segment_count integer NOT NULL DEFAULT 0,
  transcript_final boolean NOT NULL DEFAULT false,
  transcript_deleted_at timestamptz,
  written_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, created_at, id)
) PARTITION BY RANGE (created_at);

-- getSession finds a session by its id alone (the account is checked on the row).
CREATE INDEX sessions_by_id ON sessions (id);
-- listSessions with a status: newest first within the account's sessions of that status.
CREATE INDEX sessions_by_status ON sessions (account_id, status, created_at, id);

-- The segments of ended sessions' transcripts, written with their session; partitioned by their session's
-- creation day, so a day's partition of both tables goes at once. Deleting a transcript deletes its rows.
CREATE TABLE transcript_segments (
  account_id text NOT NULL,
  session_created_at timestamptz NOT NULL,
  session_id uuid NOT NULL,
  -- Ids are ASCII ([A-Za-z0-9_.:-]): byte order is the API's order of equal start times.
  segment_id text COLLATE "C" NOT NULL,
  speaker text NOT NULL,
  text text NOT NULL,
  started_at timestamptz NOT NULL,
  ended_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, session_created_at, session_id, segment_id)
) PARTITION BY RANGE (session_created_at);

-- A transcript's pages: spoken order (start time, then id).
CREATE INDEX transcript_segments_spoken ON transcript_segments (session_id, started_at, segment_id);

-- The accounts' usage counters (contract: Usage), per UTC day: Redis counts live, and the history writer
-- moves each day's counters here (usage_moves records each move, so one retried is added once).
CREATE TABLE usage_counts (
  account_id text NOT NULL,
  day date NOT NULL,
  field text NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (account_id, day, field)
);

-- Each move of a day's counters, with what it moved and when Redis made it (its clock, µs): a reader of
-- usage takes Redis's counters at a moment and leaves out the moves made after it.
CREATE TABLE usage_moves (
  move_id text PRIMARY KEY,
  account_id text NOT NULL,
  day date NOT NULL,
  moved_at_us bigint NOT NULL,
  counts jsonb NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_moves_by_account ON usage_moves (account_id, day, moved_at_us);
CREATE INDEX usage_moves_by_day ON usage_moves (day);

-- Down Migration
DROP TABLE usage_moves;
DROP TABLE usage_counts;
DROP TABLE transcript_segments;
DROP TABLE sessions;
