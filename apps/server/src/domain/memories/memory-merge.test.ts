import { describe, expect, it } from "vitest";
import { mergedFacts } from "./memory-merge.js";

describe("mergedFacts", () => {
  it("keeps ours, then what a concurrent analysis added, without repeats", () => {
    expect(mergedFacts(["Name is Sam"], ["Name is Sam", "Wants a sea view"], ["name is sam", "Travels with a dog"], false)).toEqual([
      "Name is Sam",
      "Wants a sea view",
      "Travels with a dog",
    ]);
  });

  it("lets ours drop a fact the base held, even when the other write still has it", () => {
    expect(mergedFacts(["Lives in Leeds"], ["Moved to York"], ["Lives in Leeds", "Has two children"], false)).toEqual([
      "Moved to York",
      "Has two children",
    ]);
  });

  it("never writes back what was deleted since the base: only what this session newly said", () => {
    const ours = ["Name is Sam", "Allergic to nuts", "Booked room 12"];
    expect(mergedFacts(["Name is Sam", "Allergic to nuts"], ours, [], true)).toEqual(["Booked room 12"]);
    // Written again since the deletion, by a session that did not know the forgotten facts: kept with ours' new ones.
    expect(mergedFacts(["Name is Sam", "Allergic to nuts"], ours, ["Prefers mornings"], true)).toEqual([
      "Booked room 12",
      "Prefers mornings",
    ]);
  });

  it("stays within ten facts, ours first", () => {
    const ours = Array.from({ length: 8 }, (_, i) => `Ours ${i}`);
    const theirs = Array.from({ length: 5 }, (_, i) => `Theirs ${i}`);
    const merged = mergedFacts([], ours, theirs, false);
    expect(merged).toHaveLength(10);
    expect(merged.slice(0, 8)).toEqual(ours);
  });
});
