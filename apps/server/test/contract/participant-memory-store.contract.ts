/**
 * What every adapter of participant memories must do (domain/memories/ports.ts): facts kept under an
 * owner, digital human and participant and nowhere else; a write by compare-and-set of the revision (none
 * kept is revision 0, and a deleted or expired one is none); a new session keeps one longer, never
 * shorter; a delete once; a digital human's all at once. Run against the memory store (its unit test),
 * Redis and Redis Cluster (test/store) and PostgreSQL (test/postgres).
 */
import { describe, expect, it } from "vitest";
import type { MemoryKey, MemoryStore } from "../../src/domain/memories/ports.js";

export interface MemoryStoreUnderTest {
  store: MemoryStore;
  /** Moves the store's clock (ms since the epoch). */
  setNow(ms: number): void;
  close(): Promise<void>;
}

// Now, not a fixed day: Redis expires keys by its own clock too, and must not drop them on writing.
const T0 = Date.now();
const DAY_MS = 86_400_000;

const key = (overrides: Partial<MemoryKey> = {}): MemoryKey => ({
  owner: "acct_1",
  digitalHumanId: "9a4f3c1e-2b7d-4e8a-b5c6-1d2e3f4a5b6c",
  participantIdentity: "user-4821",
  ...overrides,
});
const memory = (facts: string[], atMs = T0, days = 90) => ({
  facts,
  updatedAtMs: atMs,
  expiresAtMs: atMs + days * DAY_MS,
  generation: crypto.randomUUID(),
});

export function participantMemoryStoreContract(adapter: string, make: () => Promise<MemoryStoreUnderTest>): void {
  describe(`participant memories (${adapter})`, () => {
    async function withStore(run: (under: MemoryStoreUnderTest) => Promise<void>): Promise<void> {
      const under = await make();
      under.setNow(T0);
      try {
        await run(under);
      } finally {
        await under.close();
      }
    }

    it("keeps facts under their owner, digital human and participant only", () =>
      withStore(async ({ store }) => {
        const first = memory(["Name is Ada", "Prefers tea"]);
        expect(await store.writeMemory(key(), first, undefined)).toBe(true);
        expect(await store.readMemory(key())).toEqual({
          facts: ["Name is Ada", "Prefers tea"],
          updatedAtMs: T0,
          expiresAtMs: T0 + 90 * DAY_MS,
          revision: 1,
          generation: first.generation,
        });
        for (const other of [
          key({ owner: "acct_1#test" }),
          key({ owner: "acct_2" }),
          key({ digitalHumanId: "0b8e4d1c-2a3f-4e5d-8c7b-9a0f1e2d3c4b" }),
          key({ participantIdentity: "user-4822" }),
          key({ participantIdentity: "USER-4821" }),
        ]) {
          expect(await store.readMemory(other)).toBeUndefined();
        }
      }));

    it("writes only over the memory read: a second writer from the same read loses, and the generation stays", () =>
      withStore(async ({ store }) => {
        const first = memory(["A"]);
        expect(await store.writeMemory(key(), first, undefined)).toBe(true);
        expect(await store.writeMemory(key(), memory(["B"]), undefined)).toBe(false);
        const one = await store.readMemory(key());
        expect(await store.writeMemory(key(), memory(["C"]), one)).toBe(true);
        expect(await store.writeMemory(key(), memory(["D"]), one)).toBe(false);
        const two = await store.readMemory(key());
        expect(two).toMatchObject({ facts: ["C"], revision: 2, generation: first.generation });
        const [x, y] = await Promise.all([store.writeMemory(key(), memory(["E"]), two), store.writeMemory(key(), memory(["F"]), two)]);
        expect([x, y].filter(Boolean)).toHaveLength(1);
      }));

    it("takes a deleted memory for none: a write over what was read before fails, even once it is written again", () =>
      withStore(async ({ store }) => {
        await store.writeMemory(key(), memory(["A"]), undefined);
        const before = await store.readMemory(key());
        expect(await store.deleteMemory(key())).toBe(true);
        expect(await store.deleteMemory(key())).toBe(false);
        expect(await store.readMemory(key())).toBeUndefined();
        expect(await store.writeMemory(key(), memory(["B"]), before)).toBe(false);
        const again = memory(["B"]);
        expect(await store.writeMemory(key(), again, undefined)).toBe(true);
        expect(await store.readMemory(key())).toMatchObject({ facts: ["B"], revision: 1, generation: again.generation });
        // The same revision as before the deletion, another generation: the old read is refused.
        expect(await store.writeMemory(key(), memory(["C"]), before)).toBe(false);
      }));

    it("keeps facts that are an empty list", () =>
      withStore(async ({ store }) => {
        await store.writeMemory(key(), memory([]), undefined);
        expect(await store.readMemory(key())).toMatchObject({ facts: [], revision: 1 });
        expect(await store.recallMemory(key(), T0 + 100 * DAY_MS)).toMatchObject({ facts: [] });
      }));

    it("is kept longer by a recall, never shorter, and is absent once expired", () =>
      withStore(async ({ store, setNow }) => {
        expect(await store.recallMemory(key(), T0 + DAY_MS)).toBeUndefined();
        await store.writeMemory(key(), memory(["A"], T0, 2), undefined);
        expect(await store.recallMemory(key(), T0 + DAY_MS)).toMatchObject({ expiresAtMs: T0 + 2 * DAY_MS });
        const recalled = await store.recallMemory(key(), T0 + 3 * DAY_MS);
        expect(recalled).toMatchObject({ expiresAtMs: T0 + 3 * DAY_MS, revision: 1 });
        setNow(T0 + 3 * DAY_MS + 1);
        expect(await store.readMemory(key())).toBeUndefined();
        expect(await store.recallMemory(key(), T0 + 10 * DAY_MS)).toBeUndefined();
        expect(await store.deleteMemory(key())).toBe(false);
        expect(await store.writeMemory(key(), memory(["B"], T0 + 3 * DAY_MS + 1), recalled)).toBe(false);
        expect(await store.writeMemory(key(), memory(["B"], T0 + 3 * DAY_MS + 1), undefined)).toBe(true);
      }));

    it("forgets every participant of a digital human at once, and nobody else's", () =>
      withStore(async ({ store }) => {
        const ids = Array.from({ length: 1_203 }, (_, i) => `user-${i}`);
        for (let i = 0; i < ids.length; i += 100) {
          await Promise.all(
            ids.slice(i, i + 100).map((id) => store.writeMemory(key({ participantIdentity: id }), memory([id]), undefined)),
          );
        }
        await store.writeMemory(key({ owner: "acct_1#test" }), memory(["test side"]), undefined);
        await store.writeMemory(key({ digitalHumanId: "0b8e4d1c-2a3f-4e5d-8c7b-9a0f1e2d3c4b" }), memory(["another"]), undefined);
        await store.forgetDigitalHuman("acct_1", key().digitalHumanId);
        for (const id of [ids[0], ids[600], ids[1_202]])
          expect(await store.readMemory(key({ participantIdentity: id as string }))).toBeUndefined();
        expect(await store.readMemory(key({ owner: "acct_1#test" }))).toMatchObject({ facts: ["test side"] });
        expect(await store.readMemory(key({ digitalHumanId: "0b8e4d1c-2a3f-4e5d-8c7b-9a0f1e2d3c4b" }))).toMatchObject({
          facts: ["another"],
        });
      }));
  });
}
