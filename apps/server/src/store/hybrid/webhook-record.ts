/**
 * The webhook endpoints with the PostgreSQL history, made in one place: the store that writes their record
 * first and Redis's copy with it, and the copier that keeps the copy and the record in step. The
 * composition root makes them (create-stores.ts), and the bench runs the same copier on its own.
 */
import type { Cluster, Redis } from "ioredis";
import type { Tracing } from "../../tracing/tracing.js";
import type { Database } from "../postgres/database.js";
import { RedisWebhookCopy } from "../redis/customer-webhook-copy.js";
import { RedisWebhookStore } from "../redis/customer-webhook-store.js";
import { type StepSkipped, warnStepSkipped } from "../skipped-steps.js";
import { HistoryWebhookStore } from "./history-webhook-store.js";
import { WebhookRecordCopier } from "./webhook-record-copier.js";

export function webhookRecord(
  redis: Redis | Cluster,
  prefix: string,
  db: Database,
  tracing?: Tracing,
  stepSkipped: StepSkipped = warnStepSkipped,
) {
  const live = new RedisWebhookStore(redis, prefix, tracing, true);
  const copy = new RedisWebhookCopy(redis, prefix);
  const store = new HistoryWebhookStore(live, copy, db, Date.now, stepSkipped);
  const copier = new WebhookRecordCopier({ store, live, copy, db }, { leaseMs: 30_000, batch: 100, retryMs: 5000 });
  return { store, copier };
}
