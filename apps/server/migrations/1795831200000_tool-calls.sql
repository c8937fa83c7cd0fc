-- Up Migration

-- The tool calls of ended sessions (contract: listSessionToolCalls), written with their session by the
-- history writer (src/store/postgres/session-history.ts), partitioned by their session's creation day as
-- transcript_segments are, so a day's partitions of all three tables go at once. A call written again
-- (it ended after its session's first write) takes its new outcome.
CREATE TABLE tool_calls (
  account_id text NOT NULL,
  session_created_at timestamptz NOT NULL,
  session_id uuid NOT NULL,
  -- The LLM's id of the call, unique in its session (printable ASCII).
  call_id text COLLATE "C" NOT NULL,
  -- Its place in the session's calls: the order they started.
  position integer NOT NULL,
  -- The call as the live store holds it (src/domain/tools/tool-call.ts).
  record jsonb NOT NULL,
  PRIMARY KEY (account_id, session_created_at, session_id, call_id)
) PARTITION BY RANGE (session_created_at);

CREATE INDEX tool_calls_by_session ON tool_calls (session_id, position);

-- Down Migration
DROP TABLE tool_calls;
