/**
 * The sweeper that fires every session timer on each replica: the session machine's own and each
 * feature's (the handlers assembleFeatures collects), with its failures logged and counted.
 */
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { SessionStore } from "../domain/sessions/ports.js";
import type { Metrics } from "../metrics.js";
import { type TimerHandler, TimerSweeper } from "../workers/timer-sweeper.js";

export function timerSweeperOf(
  config: Config,
  store: SessionStore,
  timers: TimerHandler,
  logger: Logger,
  metrics: Metrics,
  now: (() => number) | undefined,
): TimerSweeper {
  return new TimerSweeper(store, timers, {
    intervalMs: config.sweepIntervalMs,
    leaseMs: 30_000,
    batch: 100,
    ...(now ? { now } : {}),
    onError: (err, due) => {
      if (due === undefined) logger.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, "timer sweep failed");
    },
    onFailures: (failed) => {
      metrics.timerFailures(failed.byTimer);
      logger.warn(
        { failed: failed.count, timers: failed.byTimer, err: { message: failed.first.message }, session_id: failed.first.sessionId },
        "due timers failed in this sweep: each is tried again once its lease runs out",
      );
    },
  });
}
