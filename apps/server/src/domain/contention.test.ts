import { describe, expect, it } from "vitest";
import { AppError } from "./app-error.js";
import { MAX_TRIES, untilWritten } from "./contention.js";

/** A change that loses `losses` times, then wins; the waits asked for are kept. */
function contended(losses: number, random = () => 1) {
  const waits: number[] = [];
  let tries = 0;
  const run = untilWritten(
    "Thing 1",
    async () => {
      tries++;
      return tries > losses ? { won: true as const, value: `won on try ${tries}` } : { won: false as const };
    },
    { sleep: async (ms) => void waits.push(ms), random },
  );
  return { run, waits, tries: () => tries };
}

describe("untilWritten", () => {
  it("answers at once when the first write wins, without waiting", async () => {
    const { run, waits } = contended(0);
    expect(await run).toBe("won on try 1");
    expect(waits).toEqual([]);
  });

  it("tries again after waits that grow (up to 100 ms), until the write wins", async () => {
    const { run, waits } = contended(8);
    expect(await run).toBe("won on try 9");
    expect(waits).toEqual([4, 8, 16, 32, 64, 100, 100, 100]);
  });

  it("waits a random share of each bound, so writers spread out", async () => {
    const { run, waits } = contended(3, () => 0.25);
    await run;
    expect(waits).toEqual([1, 2, 4]);
  });

  it("after every try lost, answers 429 concurrent_changes with Retry-After 1, naming what was contended", async () => {
    const { run, tries } = contended(Number.POSITIVE_INFINITY);
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: "concurrent_changes",
      retryAfterSeconds: 1,
      detail: expect.stringMatching(/^Thing 1 was changed/),
    });
    expect(tries()).toBe(MAX_TRIES);
  });
});
