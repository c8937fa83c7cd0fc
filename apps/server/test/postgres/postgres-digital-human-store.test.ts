/**
 * The digital human store's port contract (test/contract) against PostgreSQL as their record, with the
 * creates' keys in Redis: each test a database copied from the run's template and a key
 * prefix of its own.
 */
import { TcpGate } from "@dhs/testkit";
import { Redis } from "ioredis";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { DependencyUnavailableError } from "../../src/domain/dependency-errors.js";
import type { DigitalHumanVersion } from "../../src/domain/digital-humans/ports.js";
import { PostgresDigitalHumanStore } from "../../src/store/hybrid/digital-human-store.js";
import { LastReadDigitalHumans } from "../../src/store/hybrid/last-read-digital-humans.js";
import { warnStepSkipped } from "../../src/store/skipped-steps.js";
import { creation, digitalHumanStoreContract, record } from "../contract/digital-human-store.contract.js";
import { databaseFrom, testPool } from "../support/database.js";

digitalHumanStoreContract("PostgreSQL (with Redis's keys)", async () => {
  const database = await databaseFrom(inject("databaseTemplate"));
  const db = testPool(database.url, 20);
  const redis = new Redis(inject("redisUrl"));
  return {
    store: new PostgresDigitalHumanStore(db, redis, `dh${crypto.randomUUID().slice(0, 8)}`),
    close: async () => {
      redis.disconnect();
      await db.end();
      await database.drop();
    },
  };
});

describe("what a process last read of PostgreSQL's digital humans", () => {
  it("serves it while the database is down, for its lifetime; one it never read, or changed from there, is the outage's 503", async () => {
    const database = await databaseFrom(inject("databaseTemplate"));
    const gate = await new TcpGate({ host: "127.0.0.1", port: 5432 }).open();
    const direct = testPool(database.url, 2);
    const url = new URL(database.url);
    url.port = String(gate.port);
    const gated = testPool(url.toString(), 2);
    const redis = new Redis(inject("redisUrl"));
    onTestFinished(async () => {
      redis.disconnect();
      await gate.close();
      await Promise.all([direct.end(), gated.end()]);
      await database.drop();
    });
    const prefix = `dh${crypto.randomUUID().slice(0, 8)}`;
    let nowMs = Date.now();
    // Two processes on one database: this one, whose database goes away, and another.
    const here = new PostgresDigitalHumanStore(
      gated,
      redis,
      prefix,
      warnStepSkipped,
      new LastReadDigitalHumans({ lifetimeMs: 60_000, capacity: 10, now: () => nowMs }),
    );
    const elsewhere = new PostgresDigitalHumanStore(direct, redis, prefix);
    const owner = "acct_last_read";
    const made = record(owner);
    const unread = record(owner);
    expect(await here.createDigitalHuman(creation(made))).toMatchObject({ kind: "created" });
    expect(await elsewhere.createDigitalHuman(creation(unread))).toMatchObject({ kind: "created" });
    // Changed elsewhere, read here: what this process knows is the database's latest.
    const first = await elsewhere.getDigitalHuman(owner, made.id);
    expect(await elsewhere.replaceDigitalHuman({ ...made, name: "Maya II" }, first?.version as DigitalHumanVersion)).toBe(true);
    expect((await here.getDigitalHuman(owner, made.id))?.record.name).toBe("Maya II");

    await gate.close();
    const served = await here.getDigitalHuman(owner, made.id);
    expect(served?.record).toEqual({ ...made, name: "Maya II" });
    await expect(here.replaceDigitalHuman({ ...made, name: "Maya III" }, served?.version as DigitalHumanVersion)).rejects.toBeInstanceOf(
      DependencyUnavailableError,
    );
    await expect(here.getDigitalHuman(owner, unread.id)).rejects.toBeInstanceOf(DependencyUnavailableError);
    nowMs += 60_001;
    await expect(here.getDigitalHuman(owner, made.id)).rejects.toBeInstanceOf(DependencyUnavailableError);

    await gate.open();
    // Deleted elsewhere: the database's answer, not the memory's.
    expect(await elsewhere.deleteDigitalHuman(owner, made.id)).toBe(true);
    expect(await here.getDigitalHuman(owner, made.id)).toBeUndefined();
    await gate.close();
    await expect(here.getDigitalHuman(owner, made.id)).rejects.toBeInstanceOf(DependencyUnavailableError);
  });
});
