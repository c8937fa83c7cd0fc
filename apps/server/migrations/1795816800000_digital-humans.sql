-- Up Migration

-- The accounts' own digital humans (createDigitalHuman), the record of them: each under its owner (an
-- account, or its test side), its JSON as the API stores it, and a version for compare-and-set. Redis
-- keeps the Idempotency-Keys of their creates and a copy each, read when this database cannot be.
CREATE TABLE digital_humans (
  owner text NOT NULL,
  id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  record jsonb NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  PRIMARY KEY (owner, id)
);

-- listDigitalHumans: newest first, ties by id.
CREATE INDEX digital_humans_newest ON digital_humans (owner, created_at DESC, id DESC);

-- Down Migration
DROP TABLE digital_humans;
