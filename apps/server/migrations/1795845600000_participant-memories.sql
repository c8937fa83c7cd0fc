-- Up Migration

-- What the accounts' digital humans remember about returning participants (contract: Memory), each under
-- the digital human's owner (an account, or its test side), compared and set by `revision`. A row past
-- `expires_at` counts as absent and is deleted by the history writer's retention pass.
CREATE TABLE participant_memories (
  owner text NOT NULL,
  digital_human_id uuid NOT NULL,
  participant_identity text NOT NULL,
  facts jsonb NOT NULL,
  revision bigint NOT NULL,
  -- Names the memory from its first write until it is deleted or expires (domain/memories/ports.ts).
  generation text NOT NULL,
  updated_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (owner, digital_human_id, participant_identity)
);

-- The retention pass: the expired ones, oldest first.
CREATE INDEX participant_memories_expiry ON participant_memories (expires_at);

-- Down Migration
DROP TABLE participant_memories;
