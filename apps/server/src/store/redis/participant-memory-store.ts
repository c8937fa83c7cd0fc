/**
 * Participant memories on Redis (MemoryStore), without the history database: each a hash that expires
 * with the memory, indexed by the digital human so that deleting it forgets them all, every key of one
 * digital human in one slot (keys.ts). Redis keeps them only as long as it keeps its data: on a Redis
 * that persists nothing, a restart forgets them (docs/storage.md).
 */
import type { Cluster, Redis } from "ioredis";
import type { KeptMemory, MemoryKey, MemoryStore, MemoryVersion, MemoryWrite } from "../../domain/memories/ports.js";
import type { Tracing } from "../../tracing/tracing.js";
import { guard } from "./guard.js";
import { type Keyspace, keyspace } from "./keys.js";
import { RedisScripts } from "./scripts.js";

const FORGET_BATCH = 500;

export class RedisParticipantMemories implements MemoryStore {
  private readonly keys: Keyspace;
  private readonly scripts: RedisScripts;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix: string,
    tracing?: Tracing,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = keyspace(prefix);
    this.scripts = new RedisScripts(redis, tracing);
  }

  readMemory(key: MemoryKey): Promise<KeptMemory | undefined> {
    return guard(async () => decoded(await this.redis.hgetall(this.memoryKey(key)), this.now()));
  }

  recallMemory(key: MemoryKey, expiresAtMs: number): Promise<KeptMemory | undefined> {
    return guard(async () => {
      const flat = await this.scripts.run("recallMemory", {
        ...this.slotKeys(key),
        identity: key.participantIdentity,
        expiresAtMs,
        nowMs: this.now(),
      });
      const fields: Record<string, string> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
      return decoded(fields, this.now());
    });
  }

  writeMemory(key: MemoryKey, memory: MemoryWrite, read: MemoryVersion | undefined): Promise<boolean> {
    return guard(async () => {
      const written = await this.scripts.run("writeMemory", {
        ...this.slotKeys(key),
        identity: key.participantIdentity,
        revision: read?.revision ?? 0,
        readGeneration: read?.generation ?? "",
        facts: JSON.stringify(memory.facts),
        updatedAtMs: memory.updatedAtMs,
        expiresAtMs: memory.expiresAtMs,
        nowMs: this.now(),
        generation: memory.generation,
      });
      return written === 1;
    });
  }

  deleteMemory(key: MemoryKey): Promise<boolean> {
    return guard(
      async () =>
        (await this.scripts.run("deleteMemory", { ...this.slotKeys(key), identity: key.participantIdentity, nowMs: this.now() })) === 1,
    );
  }

  /** In batches: a digital human may remember many participants, and one script must not hold Redis long. */
  forgetDigitalHuman(owner: string, digitalHumanId: string): Promise<void> {
    const index = this.keys.memories(owner, digitalHumanId);
    return guard(async () => {
      for (;;) {
        const identities = await this.redis.zrange(index, "0", String(FORGET_BATCH - 1));
        if (identities.length === 0) return;
        // One slot (the digital human's tag), so a multi-key DEL is allowed on a Cluster too.
        await this.redis.del(...identities.map((identity) => this.keys.memory(owner, digitalHumanId, identity)));
        await this.redis.zrem(index, ...identities);
      }
    });
  }

  private memoryKey(key: MemoryKey): string {
    return this.keys.memory(key.owner, key.digitalHumanId, key.participantIdentity);
  }

  private slotKeys(key: MemoryKey): { memory: string; index: string } {
    return { memory: this.memoryKey(key), index: this.keys.memories(key.owner, key.digitalHumanId) };
  }
}

function decoded(fields: Record<string, string>, nowMs: number): KeptMemory | undefined {
  if (fields.rev === undefined || fields.facts === undefined || Number(fields.expires_ms) <= nowMs) return undefined;
  return {
    facts: JSON.parse(fields.facts) as string[],
    updatedAtMs: Number(fields.updated_ms),
    expiresAtMs: Number(fields.expires_ms),
    revision: Number(fields.rev),
    generation: fields.gen ?? "",
  };
}
