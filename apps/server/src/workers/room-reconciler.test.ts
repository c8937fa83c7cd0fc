import { describe, expect, it } from "vitest";
import { persona, sessionRecord } from "../../test/support/session-fixtures.js";
import { DependencyUnavailableError } from "../domain/dependency-errors.js";
import type { RoomService, SessionRoom } from "../domain/sessions/ports.js";
import { roomNameFor } from "../domain/sessions/session.js";
import { MemorySessionStore } from "../store/memory/session-store.js";
import { RoomReconciler } from "./room-reconciler.js";

const NOW = Date.parse("2026-11-24T10:00:00.000Z");
const GRACE = 60_000;

/** LiveKit's rooms of this deployment, and the deletions asked of it. */
class Rooms implements Partial<RoomService> {
  listed: SessionRoom[] = [];
  deleted: string[] = [];
  failDeleteOf = new Set<string>();
  async listSessionRooms(): Promise<SessionRoom[]> {
    return this.listed;
  }
  async deleteRoom(name: string): Promise<void> {
    if (this.failDeleteOf.has(name)) throw new DependencyUnavailableError("livekit");
    this.deleted.push(name);
  }
}

function room(sessionId: string, ageMs: number): SessionRoom {
  return { name: roomNameFor(sessionId), accountId: "acct_1", sessionId, createdAtMs: NOW - ageMs };
}

async function setup() {
  const store = new MemorySessionStore(() => NOW);
  const rooms = new Rooms();
  const deletedFor: string[] = [];
  const errors: unknown[] = [];
  const reconciler = (holder: string) =>
    new RoomReconciler(store, rooms as unknown as RoomService, {
      intervalMs: 60_000,
      graceMs: GRACE,
      holder,
      now: () => NOW,
      onDeleted: (reason) => deletedFor.push(reason),
      onError: (error) => errors.push(error),
    });
  /** Stores a session in `status` through the store's create steps; its id, which the store names. */
  const stored = async (status: "created" | "active" | "completed" | "cancelled" | "failed") => {
    const idempotencyKey = crypto.randomUUID();
    const claim = { lockTtlMs: 60_000, keyTtlMs: 60_000, maxOpen: 100, createdAtMs: NOW };
    const begun = await store.beginCreate("acct_1", idempotencyKey, "fp", claim);
    if (begun.kind !== "acquired") throw new Error(`expected an acquisition, got ${begun.kind}`);
    const session = sessionRecord({
      id: begun.sessionId,
      status,
      ended_at: status === "created" || status === "active" ? null : new Date(NOW).toISOString(),
    });
    const completion = {
      ...{ session, idempotencyKey, fingerprint: "fp", lock: begun.lock, keyTtlMs: 60_000, events: [], usage: undefined },
      ...{ persona: persona(), personaTtlMs: 60_000 },
    };
    if (!(await store.completeCreate(completion))) throw new Error("the create did not complete");
    return session.id;
  };
  return { store, rooms, reconciler, stored, deletedFor, errors };
}

const ID = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

describe("RoomReconciler.reconcile", () => {
  it("deletes the rooms of terminal sessions and of sessions missing past the grace, and no other", async () => {
    const { rooms, reconciler, stored, deletedFor } = await setup();
    const completed = await stored("completed");
    const failed = await stored("failed");
    const active = await stored("active");
    const created = await stored("created");
    rooms.listed = [
      room(completed, 10_000),
      room(failed, 3_600_000),
      room(active, 3_600_000),
      room(created, 3_600_000),
      // No session: a CreateRoom that timed out but happened, for a create nobody retried.
      room(ID(5), GRACE),
      // No session yet: a create in flight has made its room and not stored its session.
      room(ID(6), GRACE - 1),
    ];
    const result = await reconciler("replica-1").reconcile();
    expect(result).toEqual({ ran: true, rooms: 6, deleted: { terminal: 2, missing: 1 } });
    expect(rooms.deleted.sort()).toEqual([roomNameFor(completed), roomNameFor(failed), roomNameFor(ID(5))].sort());
    expect(deletedFor.sort()).toEqual(["missing", "terminal", "terminal"]);
  });

  it("runs on one replica at a time: another holding the lease looks at nothing", async () => {
    const { rooms, reconciler, stored } = await setup();
    const completed = await stored("completed");
    rooms.listed = [room(completed, 10_000)];
    expect((await reconciler("replica-1").reconcile()).ran).toBe(true);
    rooms.deleted = [];
    expect(await reconciler("replica-2").reconcile()).toEqual({ ran: false, rooms: 0, deleted: { terminal: 0, missing: 0 } });
    expect(rooms.deleted).toEqual([]);
    // The holder itself goes on at its next interval.
    expect((await reconciler("replica-1").reconcile()).ran).toBe(true);
  });

  it("goes on past a room it cannot delete now, reporting it, and tries it again next pass", async () => {
    const { rooms, reconciler, stored, errors } = await setup();
    const completed = await stored("completed");
    const cancelled = await stored("cancelled");
    rooms.listed = [room(completed, 10_000), room(cancelled, 10_000)];
    rooms.failDeleteOf.add(roomNameFor(completed));
    const first = await reconciler("replica-1").reconcile();
    expect(first.deleted).toEqual({ terminal: 1, missing: 0 });
    expect(errors).toEqual([expect.any(DependencyUnavailableError)]);
    rooms.failDeleteOf.clear();
    expect((await reconciler("replica-1").reconcile()).deleted.terminal).toBe(2);
    expect(rooms.deleted).toContain(roomNameFor(completed));
  });
});
