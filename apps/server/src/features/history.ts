/**
 * The sessions' history as a feature: the writer that moves ended sessions (and the endpoints' changes)
 * from Redis to PostgreSQL, every replica running one, when there is a history database. It answers no
 * operation: the sessions' reads find the history through the store.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Metrics } from "../metrics.js";
import type { Stores } from "../store/create-stores.js";
import { HistoryWriter } from "../workers/history-writer.js";
import type { Feature } from "./feature.js";

export function historyOf(config: Config, stores: Stores, logger: Logger, metrics: Metrics) {
  const writer = historyWriterOf(config, stores, logger, metrics);
  return { writer, feature: { name: "history", background: [writer] } satisfies Feature };
}

/** The history writer, when there is a history database; its queue's size is a metric. */
function historyWriterOf(config: Config, stores: Stores, logger: Logger, metrics: Metrics): HistoryWriter | undefined {
  if (!stores.history) return undefined;
  metrics.observeHistoryQueue(() => (stores.history as NonNullable<Stores["history"]>).queue.backlog());
  let lastError = "";
  return new HistoryWriter(
    { ...stores.history, leases: stores.sessions },
    {
      intervalMs: config.sweepIntervalMs,
      leaseMs: 30_000,
      batch: 500,
      keepMs: config.database.redisKeepMs,
      holder: randomUUID(),
      onWritten: (count) => {
        lastError = "";
        metrics.sessionsWritten(count);
      },
      onDropped: (partitions) => logger.info({ partitions }, "history past its retention dropped"),
      onRefused: (refused) => {
        metrics.sessionsRefused(refused.length);
        for (const { sessionId, accountId, error } of refused) {
          logger.error(
            { session_id: sessionId, account_id: accountId, err: { name: error.name, message: error.message } },
            "the history database refused an ended session: set aside (Redis keeps it until its retention; queued again each hour)",
          );
        }
      },
      onRequeued: (count) => logger.info({ sessions: count }, "set-aside sessions queued again for the history database"),
      // One line per distinct failure while the database is down, not one per pass.
      onError: (err) => {
        metrics.databaseError();
        const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
        const message = err instanceof Error ? `${err.message}${cause}` : String(err);
        if (message === lastError) return;
        lastError = message;
        logger.warn(
          { err: { message } },
          "history write failed; Redis keeps what it was to write (ended sessions, endpoints' changes) until it succeeds",
        );
      },
    },
  );
}
