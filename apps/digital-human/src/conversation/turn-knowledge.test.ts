import { describe, expect, it } from "vitest";
import { knowledgeMessage, type Passage, TurnKnowledge } from "./turn-knowledge.js";

const PASSAGE: Passage = { document_id: "doc_4b1e9c2d7a3f5e60b8c1d2e3", document_name: "Facts", text: "Breakfast\nAt eight.", score: 0.3 };

describe("a turn's passages", () => {
  it("are searched once for the same words, shared by the turn's report and its reply", async () => {
    const queries: string[] = [];
    const knowledge = new TurnKnowledge(
      async (q) => {
        queries.push(q);
        return [PASSAGE];
      },
      { timeoutMs: 1000 },
    );
    const [a, b] = await Promise.all([knowledge.forTurn(" breakfast? "), knowledge.forTurn("breakfast?")]);
    expect(a).toEqual([PASSAGE]);
    expect(b).toBe(a);
    await knowledge.forTurn("parking?");
    expect(queries).toEqual(["breakfast?", "parking?"]);
  });

  it("are none when the search fails, answers nothing, or takes longer than the deadline, which is timed", async () => {
    const steps: number[] = [];
    const onSearched = (_ms: number, n: number) => steps.push(n);
    expect(await new TurnKnowledge(async () => Promise.reject(new Error("503")), { timeoutMs: 100, onSearched }).forTurn("a")).toEqual([]);
    expect(await new TurnKnowledge(async () => undefined, { timeoutMs: 100, onSearched }).forTurn("a")).toEqual([]);
    const slow = new TurnKnowledge(() => new Promise((resolve) => setTimeout(() => resolve([PASSAGE]), 1000)), {
      timeoutMs: 50,
      onSearched,
    });
    const started = Date.now();
    expect(await slow.forTurn("a")).toEqual([]);
    expect(Date.now() - started).toBeLessThan(900);
    expect(steps).toEqual([0, 0, 0]);
  });

  it("are never searched for a turn with no words", async () => {
    const knowledge = new TurnKnowledge(async () => [PASSAGE], { timeoutMs: 100 });
    expect(await knowledge.forTurn("   ")).toEqual([]);
  });

  it("are given to the LLM with their document's name and the rule to answer from them or say it does not know", () => {
    const message = knowledgeMessage([PASSAGE]);
    expect(message).toContain("[Facts]\nBreakfast\nAt eight.");
    expect(message).toMatch(/say you do not know rather than guess/);
  });
});
