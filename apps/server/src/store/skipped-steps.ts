/**
 * Steps a store leaves undone when they fail, because the outcome its caller answers stands without
 * them and something else makes them good later: a repair gives an open session's place back or counts
 * it, the hourly sweep refreshes a copy. Such a failure was once swallowed whole; an
 * outage that makes them pile up must be seen, so each is reported (logged and counted,
 * `dhs_store_steps_skipped_total{step}`) and then left to what makes it good.
 */
import type { Logger } from "pino";

export type SkippedStep =
  /** An ended session's place among its account's open ones (the account's repair gives it back). */
  | "open_place_release"
  /** A created session's place among its account's open ones (the repair counts it once its claim expired). */
  | "open_place_count"
  /** A failed create's claim of its Idempotency-Key, given back (its lease ends instead). */
  | "digital_human_claim_release"
  /** An endpoint whose Redis copy could not be repaired, marked for the hourly sweep. */
  | "webhook_copy_repair_mark";

export type StepSkipped = (step: SkippedStep, error: unknown) => void;

/** The service's own: a warning line with the step and the error's message, and a count by step. */
export function loggedAndCounted(logger: Logger, metrics: { storeStepSkipped(step: SkippedStep): void }): StepSkipped {
  return (step, error) => {
    metrics.storeStepSkipped(step);
    logger.warn({ step, err: { message: messageOf(error) } }, "store step skipped");
  };
}

/** For a store made alone (a test's): the warning on stderr, since nothing is there to log or count it. */
export const warnStepSkipped: StepSkipped = (step, error) => {
  process.emitWarning(`store step skipped: ${step}: ${messageOf(error)}`);
};

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** `work`, whose failure is reported as `step` and then resolves undefined. */
export function skippable<T>(work: Promise<T>, step: SkippedStep, skipped: StepSkipped): Promise<T | undefined> {
  return work.catch((error: unknown) => {
    skipped(step, error);
    return undefined;
  });
}
