/** The transcript store's port contract against the Redis adapter (one Redis, or a Cluster in api:cluster), and its expiry. */
import { describe, expect, it } from "vitest";
import { keyspace } from "../../src/store/redis/keys.js";
import { RedisTranscriptStore } from "../../src/store/redis/transcript-store.js";
import { transcriptStoreContract } from "../contract/transcript-store.contract.js";
import { REDIS_ADAPTER, useRedis } from "./redis-connection.js";

const redis = useRedis();

transcriptStoreContract(REDIS_ADAPTER, () => new RedisTranscriptStore(redis(), `tr${crypto.randomUUID().slice(0, 8)}`));

describe("the Redis transcript store's keys", () => {
  it("expire when they are told to: with the session, never later", async () => {
    const prefix = `tx${crypto.randomUUID().slice(0, 8)}`;
    const store = new RedisTranscriptStore(redis(), prefix);
    const keys = keyspace(prefix);
    const id = crypto.randomUUID();
    const now = Date.now();
    const segment = { id: "a", speaker: "participant" as const, text: "hi", startedAtMs: 1, endedAtMs: 2 };
    await store.appendSegments({
      sessionId: id,
      segments: [segment],
      final: false,
      maxSegments: 5,
      closesAtMs: undefined,
      nowMs: now,
      expiresAtMs: now + 3_600_000,
    });
    const expiry = async () => [await redis().pexpiretime(keys.transcript(id)), await redis().pexpiretime(keys.transcriptOrder(id))];
    expect(await expiry()).toEqual([now + 3_600_000, now + 3_600_000]);
    await store.expireAt(id, now + 60_000);
    expect(await expiry()).toEqual([now + 60_000, now + 60_000]);
    await store.deleteTranscript(id, now, now + 60_000);
    expect(await redis().pexpiretime(keys.transcript(id))).toBe(now + 60_000);
    expect(await redis().exists(keys.transcriptOrder(id))).toBe(0);
  });
});
