/**
 * An account's own digital humans on Redis (DigitalHumanStore): each owner's (an account, or its test
 * side) in its slot, as JSON by id beside their order by creation time; a create, a change and a delete
 * are one script each (digital-human-scripts.ts). An owner has at most a limit of them (100 by default),
 * so a list reads the whole order and pages in the server.
 */
import type { Cluster, Redis } from "ioredis";
import type {
  DigitalHumanCreateOutcome,
  DigitalHumanCreation,
  DigitalHumanRecord,
  DigitalHumanStore,
  DigitalHumanVersion,
  StoredDigitalHuman,
} from "../../../domain/digital-humans/ports.js";
import { isAfterCursor, type ListPosition, newestFirst } from "../../../domain/list-order.js";
import type { Tracing } from "../../../tracing/tracing.js";
import { guard } from "../guard.js";
import { type Keyspace, keyspace } from "../keys.js";
import { RedisScripts } from "../scripts.js";

export class RedisDigitalHumanStore implements DigitalHumanStore {
  private readonly keys: Keyspace;
  private readonly scripts: RedisScripts;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix: string,
    tracing?: Tracing,
  ) {
    this.keys = keyspace(prefix);
    this.scripts = new RedisScripts(redis, tracing);
  }

  createDigitalHuman(creation: DigitalHumanCreation): Promise<DigitalHumanCreateOutcome> {
    const { record } = creation;
    return guard(async () => {
      const [kind, id] = await this.scripts.run("createDigitalHuman", {
        key: this.keys.digitalHumanKey(record.owner, creation.idempotencyKey),
        all: this.keys.digitalHumans(record.owner),
        order: this.keys.digitalHumanOrder(record.owner),
        fingerprint: creation.fingerprint,
        id: record.id,
        json: JSON.stringify(record),
        createdMs: Date.parse(record.created_at),
        keyTtlMs: creation.keyTtlMs,
        limit: creation.limit,
      });
      if (kind === "replay") return { kind, id: id as string };
      if (kind === "created") return { kind, record };
      if (kind === "reused" || kind === "limit") return { kind };
      throw new Error(`unexpected reply ${kind} to createDigitalHuman`);
    });
  }

  getDigitalHuman(owner: string, id: string): Promise<StoredDigitalHuman | undefined> {
    return guard(async () => {
      const json = await this.redis.hget(this.keys.digitalHumans(owner), id);
      return json === null
        ? undefined
        : { record: JSON.parse(json) as DigitalHumanRecord, version: json as unknown as DigitalHumanVersion };
    });
  }

  listDigitalHumans(owner: string, query: { limit: number; after?: ListPosition | undefined }): Promise<DigitalHumanRecord[]> {
    return guard(async () => {
      const flat = await this.redis.zrange(this.keys.digitalHumanOrder(owner), "0", "-1", "WITHSCORES");
      const positions: ListPosition[] = [];
      for (let i = 0; i < flat.length; i += 2) positions.push({ id: flat[i] as string, createdAtMs: Number(flat[i + 1]) });
      const page = positions
        .filter((position) => isAfterCursor(position, query.after))
        .sort(newestFirst)
        .slice(0, query.limit + 1);
      if (page.length === 0) return [];
      const jsons = await this.redis.hmget(this.keys.digitalHumans(owner), ...page.map((position) => position.id));
      return jsons.flatMap((json) => (json === null ? [] : [JSON.parse(json) as DigitalHumanRecord]));
    });
  }

  replaceDigitalHuman(record: DigitalHumanRecord, version: DigitalHumanVersion): Promise<boolean> {
    return guard(async () => {
      const replaced = await this.scripts.run("replaceDigitalHuman", {
        all: this.keys.digitalHumans(record.owner),
        id: record.id,
        version: version as unknown as string,
        json: JSON.stringify(record),
      });
      return replaced === 1;
    });
  }

  deleteDigitalHuman(owner: string, id: string): Promise<boolean> {
    return guard(async () => {
      const deleted = await this.scripts.run("deleteDigitalHuman", {
        all: this.keys.digitalHumans(owner),
        order: this.keys.digitalHumanOrder(owner),
        id,
      });
      return deleted === 1;
    });
  }
}
