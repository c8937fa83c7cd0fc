import { describe, expect, it } from "vitest";
import { isAfterCursor, type ListPosition, newestFirst } from "../list-order.js";

const at = (createdAtMs: number, id: string): ListPosition => ({ createdAtMs, id });

describe("list order", () => {
  it("sorts newest first, equal times by id descending", () => {
    const sorted = [at(1, "a"), at(3, "a"), at(2, "b"), at(2, "c"), at(2, "a")].sort(newestFirst);
    expect(sorted).toEqual([at(3, "a"), at(2, "c"), at(2, "b"), at(2, "a"), at(1, "a")]);
  });

  it.each([
    ["no cursor", at(5, "x"), undefined, true],
    ["an older entry", at(1, "z"), at(2, "a"), true],
    ["a newer entry", at(3, "a"), at(2, "z"), false],
    ["the cursor's own entry", at(2, "m"), at(2, "m"), false],
    ["the same time, a lower id", at(2, "a"), at(2, "m"), true],
    ["the same time, a higher id", at(2, "z"), at(2, "m"), false],
  ] as const)("isAfterCursor: %s -> %s", (_name, entry, cursor, want) => {
    expect(isAfterCursor(entry, cursor)).toBe(want);
  });
});
