/** Resolves after `milliseconds`. */
export const sleep = (milliseconds: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, milliseconds));

export interface UntilOptions {
  /** Give up after this long (default 8 s). */
  timeoutMs?: number;
  /** What is awaited, for the error when it does not come. */
  what?: string;
  /** How often to check (default 50 ms). */
  everyMs?: number;
}

/** Checks until `check` gives a truthy value and resolves with it; rejects once the timeout has passed. */
export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  options: UntilOptions | number = {},
): Promise<T> {
  const { timeoutMs = 8000, what = "the condition", everyMs = 50 } = typeof options === "number" ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
