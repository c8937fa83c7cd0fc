/**
 * The session store's port contracts (test/contract) against the Redis adapter: on one Redis in the
 * api:redis project, on a Redis Cluster in api:cluster. Each test gets a key prefix of its own.
 */
import { describe, expect, it } from "vitest";
import { RedisSessionStore } from "../../src/store/redis/session-store.js";
import { changed, created, fresh, listQuery, sessionStoreContract } from "../contract/session-store.contract.js";
import { REDIS_ADAPTER, useRedis } from "./redis-connection.js";

const redis = useRedis();

sessionStoreContract(REDIS_ADAPTER, async () => ({
  store: new RedisSessionStore(redis(), `contract${crypto.randomUUID().slice(0, 8)}`),
  // The connection is the file's; each store only has its own prefix.
  close: async () => {},
}));

describe(`the ${REDIS_ADAPTER} store's list`, () => {
  it("lists a session that ends between the list's index reads and its record reads once, ended", async () => {
    const store = new RedisSessionStore(redis(), `race${crypto.randomUUID().slice(0, 8)}`);
    const account = "acct_race";
    const older = await created(store, fresh(account, 2000));
    const ending = await created(store, fresh(account, 1000));
    // The indexes are read (the session is still among the open ones only), then it ends, then its record
    // is read: what a list on a Cluster meets when an end runs in between.
    const reads = store.list as unknown as { readAll(ids: readonly string[]): Promise<(string | null)[]> };
    const readAll = reads.readAll.bind(store.list);
    let ended = false;
    reads.readAll = async (ids) => {
      if (!ended) {
        ended = true;
        const endedAt = new Date().toISOString();
        await changed(store, ending, { status: "cancelled", end_reason: "user_ended", ended_at: endedAt }, Date.now() + 60_000);
      }
      return readAll(ids);
    };
    const listed = await store.listSessions(account, listQuery());
    expect(listed.map((s) => [s.id, s.status])).toEqual([
      [ending.id, "cancelled"],
      [older.id, "created"],
    ]);
    // Read again, it is found among the ended ones.
    expect((await store.listSessions(account, listQuery())).map((s) => s.id)).toEqual([ending.id, older.id]);
  });
});

describe(`the ${REDIS_ADAPTER} store's steps left to the repair`, () => {
  it("reports a place it could not count or give back, and the create and the end still stand", async () => {
    const prefix = `skip${crypto.randomUUID().slice(0, 8)}`;
    const account = "acct_skip";
    const skipped: [string, string][] = [];
    // Breaks the account's claims (a string where a sorted set was) just before the step that reads them.
    const breakClaims = () => redis().set(`${prefix}:{${account}}:claims`, "not a sorted set");
    const store = new RedisSessionStore(redis(), {
      prefix,
      afterStep: async (step) => {
        if (step === "create:stored" || step === "end:replaced") await breakClaims();
      },
      onStepSkipped: (step, error) => skipped.push([step, (error as Error).message]),
    });
    const session = await created(store, fresh(account));
    expect(skipped).toEqual([["open_place_count", expect.stringContaining("WRONGTYPE")]]);
    await redis().del(`${prefix}:{${account}}:claims`);
    const ended = await changed(store, session, { status: "cancelled", end_reason: "user_ended", ended_at: new Date().toISOString() });
    expect(skipped.map(([step]) => step)).toEqual(["open_place_count", "open_place_release"]);
    expect((await store.getSession(account, session.id))?.status).toBe(ended.status);
  });
});
