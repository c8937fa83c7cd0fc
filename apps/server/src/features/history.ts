/**
 * The sessions' history as a feature: the writer that moves ended sessions (and the endpoints' changes)
 * from Redis to PostgreSQL, every replica running one, when there is a history database. It answers no
 * operation: the sessions' reads find the history through the store.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { Counter, Gauge, type Registry } from "prom-client";
import type { Config } from "../config.js";
import type { HistoryBacklog } from "../domain/sessions/history-ports.js";
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
  const { history } = stores;
  if (!history) return undefined;
  const counted = historyMetricsOf(metrics.registry, () => history.queue.backlog());
  let lastError = "";
  return new HistoryWriter(
    { ...history, leases: stores.sessions },
    {
      intervalMs: config.sweepIntervalMs,
      leaseMs: 30_000,
      batch: 500,
      keepMs: config.database.redisKeepMs,
      holder: randomUUID(),
      onWritten: (count) => {
        lastError = "";
        counted.written.inc(count);
      },
      onDropped: (partitions) => logger.info({ partitions }, "history past its retention dropped"),
      onRefused: (refused) => {
        counted.refused.inc(refused.length);
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

/**
 * Sessions written and refused, and the queue's size, the age of its oldest entry and what is set aside,
 * read when scraped: what grows while the database is down, and drains when it is back.
 */
function historyMetricsOf(registry: Registry, backlog: () => Promise<HistoryBacklog>) {
  let last = { size: 0, ageS: 0, setAside: 0 };
  const read = async () => {
    const { size, oldestMs, setAside } = await backlog();
    last = { size, ageS: oldestMs === undefined ? 0 : Math.max(0, (Date.now() - oldestMs) / 1000), setAside };
  };
  new Gauge({
    name: "dhs_history_queue_sessions",
    help: "Ended sessions waiting to be written to the history database.",
    registers: [registry],
    async collect() {
      // A backlog Redis did not answer shows its last reading; the failure is counted where it
      // happened (dhs_redis_errors_total), and a scrape must not fail for it.
      await read().catch(() => undefined);
      this.set(last.size);
    },
  });
  new Gauge({
    name: "dhs_history_queue_oldest_seconds",
    help: "How long the oldest session waiting to be written to the history database has waited, from when it was first due (however often it was claimed since).",
    registers: [registry],
    collect() {
      this.set(last.ageS);
    },
  });
  new Gauge({
    name: "dhs_history_sessions_set_aside",
    help: "Ended sessions the history database refused, set aside (kept in Redis until their retention, queued again each hour).",
    registers: [registry],
    collect() {
      this.set(last.setAside);
    },
  });
  return {
    written: new Counter({
      name: "dhs_history_sessions_written_total",
      help: "Ended sessions written to the history database (a session changed after its end is written again).",
      registers: [registry],
    }),
    refused: new Counter({
      name: "dhs_history_sessions_refused_total",
      help: "Ended sessions the history database refused to take (or whose record could not be read), set aside: alert on any.",
      registers: [registry],
    }),
  };
}
