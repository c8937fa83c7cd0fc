/**
 * A model-based test of what concurrent analyses and deletions leave in a participant's memory. Each
 * generated sequence interleaves analyses (each reads the kept facts when it starts, and keeps its list
 * when it ends: the facts it was given, less some it drops, plus some it learnt), deletions and recalls,
 * and after every step checks: at most ten facts, none twice; a fact an analysis learnt is kept once it
 * ended, unless a later writer dropped it knowingly (it was in that writer's base) or the bound pushed it
 * out; a deletion is never undone: a fact kept when the participant was forgotten comes back only if an
 * analysis that ended after the deletion learnt it anew (it was not in that analysis's base).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryParticipantMemories } from "../../store/memory/participant-memory-store.js";
import { AppError } from "../app-error.js";
import { ParticipantMemories } from "./participant-memories.js";
import type { KeptMemory } from "./ports.js";

const KEY = { owner: "acct_1", digitalHumanId: "dh-1", participantIdentity: "ada" };
const PRINCIPAL = { keyId: "k", accountId: "acct_1", account: "acct_1", mode: "live", scopes: [] } as never;

type Step = { kind: "start" } | { kind: "end"; which: number; drop: number; learn: number } | { kind: "delete" } | { kind: "recall" };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Step>({ kind: "start" }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("end" as const), which: fc.nat(5), drop: fc.nat(3), learn: fc.integer({ min: 0, max: 4 }) }),
  },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: "delete" }) },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: "recall" }) },
);

describe("participant memories under concurrent analyses and deletions", () => {
  it("keep what was learnt, within the bound, and never bring back what was forgotten", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        const memories = new ParticipantMemories({
          store: new MemoryParticipantMemories(),
          digitalHumanExists: async () => true,
          retentionMs: 86_400_000,
        });
        let fresh = 0;
        const running: { base: KeptMemory | undefined }[] = [];
        /** Facts forgotten by a deletion, and not learnt anew since. */
        const forgotten = new Set<string>();
        const facts = async () => (await memories.base(KEY))?.facts ?? [];
        for (const s of steps) {
          if (s.kind === "start") running.push({ base: await memories.base(KEY) });
          else if (s.kind === "recall") await memories.recall(KEY);
          else if (s.kind === "delete") {
            for (const fact of await facts()) forgotten.add(fact.toLowerCase());
            await memories.delete(PRINCIPAL, KEY.digitalHumanId, KEY.participantIdentity).catch(() => undefined);
          } else if (running.length > 0) {
            const [analysis] = running.splice(s.which % running.length, 1);
            const given = analysis?.base?.facts ?? [];
            const learnt = Array.from({ length: s.learn }, () => `Fact ${++fresh}`);
            const answer = [...learnt, ...given.slice(s.drop)];
            const kept = await memories.keep(KEY, analysis?.base, answer);
            for (const fact of learnt) forgotten.delete(fact.toLowerCase());
            const now = await facts();
            expect(kept).toEqual(now);
            // What it learnt comes first in its list, so the bound never pushes it out.
            for (const fact of learnt.slice(0, 10)) expect(now).toContain(fact);
          }
          const now = await facts();
          expect(now.length).toBeLessThanOrEqual(10);
          expect(new Set(now.map((f) => f.toLowerCase())).size).toBe(now.length);
          for (const fact of now) expect(forgotten.has(fact.toLowerCase())).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("writes nothing for a digital human that is gone", async () => {
    const store = new MemoryParticipantMemories();
    const memories = new ParticipantMemories({ store, digitalHumanExists: async () => false, retentionMs: 1_000 });
    expect(await memories.keep(KEY, undefined, ["Name is Ada"])).toBeUndefined();
    expect(await store.readMemory(KEY)).toBeUndefined();
  });

  it("says concurrent_changes (a 429 to retry), never a plain error, when every write loses to another", async () => {
    const store = new MemoryParticipantMemories();
    store.writeMemory = async () => false;
    const waits: number[] = [];
    const contention = { sleep: async (ms: number) => void waits.push(ms), random: () => 1 };
    const memories = new ParticipantMemories({ store, digitalHumanExists: async () => true, retentionMs: 1_000, contention });
    const error = await memories.keep(KEY, undefined, ["Name is Ada"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "concurrent_changes", retryAfterSeconds: 1 });
    expect(waits).toEqual([4, 8, 16, 32, 64, 100, 100, 100, 100, 100, 100]);
  });
});
