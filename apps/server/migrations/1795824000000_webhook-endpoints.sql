-- Up Migration

-- The accounts' webhook endpoints, the record of them: written here first (a create, delete, secret
-- rotation or enable answers 503 while this database is down), then to Redis's copy, which the hot paths
-- read (a session's change routes its events by it, the dispatcher signs with its secrets) and which
-- is rebuilt from here after Redis lost it. The endpoint's health (status, disabled_reason,
-- failing_since) changes in Redis first, as deliveries fail or succeed, and is copied here with the log.
CREATE TABLE webhook_endpoints (
  account_id text NOT NULL,
  id text NOT NULL,
  created_at timestamptz NOT NULL,
  url text NOT NULL,
  event_types text[] NOT NULL,
  description text,
  -- Current first; a rotated-out one with its expiry (contract: rotateWebhookEndpointSecret).
  secrets jsonb NOT NULL,
  status text NOT NULL,
  disabled_reason text,
  failing_since timestamptz,
  PRIMARY KEY (account_id, id)
);

-- Each endpoint's delivery attempts (listWebhookDeliveries), its newest 1 000 as the contract says,
-- copied from Redis's log of it; an attempt's id is its Redis stream entry's (milliseconds and sequence).
CREATE TABLE webhook_deliveries (
  account_id text NOT NULL,
  endpoint_id text NOT NULL,
  entry_ms bigint NOT NULL,
  entry_seq bigint NOT NULL,
  attempt jsonb NOT NULL,
  PRIMARY KEY (account_id, endpoint_id, entry_ms, entry_seq),
  FOREIGN KEY (account_id, endpoint_id) REFERENCES webhook_endpoints (account_id, id) ON DELETE CASCADE
);

-- Down Migration
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
