/**
 * Compare-and-set changes under contention (contract guide, "Errors": `concurrent_changes`). A change read,
 * decided and written only if nothing else wrote meanwhile loses to every other writer of the same thing
 * (40 backends saying something to one session while its job pulls, 30 edits of one digital human): it
 * is tried again after a short random wait that grows, so the writers spread out instead of colliding
 * again in step. A change that still loses after all its tries changed nothing, and is answered `429
 * concurrent_changes` with Retry-After, which a client sends again: never a 500.
 */
import { AppError } from "./app-error.js";

/** Tries in all; with the waits below, about half a second at the most before the answer says wait. */
export const MAX_TRIES = 12;
/** The first wait's bound (ms); each next one doubles it, up to MAX_WAIT_MS. */
const FIRST_WAIT_MS = 2;
const MAX_WAIT_MS = 100;

export interface ContentionOptions {
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** The outcome of one try: the value once written, or `lost` when another writer came first. */
export type Try<T> = { won: true; value: T } | { won: false };

/**
 * Runs `attempt` until it wins, waiting a random while ("full jitter") between tries. `subject` names what
 * was contended, for the answer of one that never won ("Session <id>'s conversation").
 */
export async function untilWritten<T>(subject: string, attempt: () => Promise<Try<T>>, options: ContentionOptions = {}): Promise<T> {
  const { sleep = defaultSleep, random = Math.random } = options;
  for (let tried = 0; tried < MAX_TRIES; tried++) {
    if (tried > 0) await sleep(random() * Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** tried));
    const outcome = await attempt();
    if (outcome.won) return outcome.value;
  }
  throw new AppError(
    "concurrent_changes",
    `${subject} was changed by other requests ${MAX_TRIES} times in a row while this one was made; nothing was changed. Retry after Retry-After.`,
    { retryAfterSeconds: 1 },
  );
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
