import { describe, expect, it } from "vitest";
import { sessionRecord } from "../../test/support/session-fixtures.js";
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
  const stored = async (id: string, status: "created" | "active" | "completed" | "cancelled" | "failed") => {
    const record = sessionRecord({
      id,
      status,
      ended_at: status === "created" || status === "active" ? null : new Date(NOW).toISOString(),
    });
    await store.completeCreate(record, `key-${id}`, "fp", "lock", 60_000, [], undefined);
    return record;
  };
  return { store, rooms, reconciler, stored, deletedFor, errors };
}

const ID = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

describe("RoomReconciler.reconcile", () => {
  it("deletes the rooms of terminal sessions and of sessions missing past the grace, and no other", async () => {
    const { rooms, reconciler, stored, deletedFor } = await setup();
    await stored(ID(1), "completed");
    await stored(ID(2), "failed");
    await stored(ID(3), "active");
    await stored(ID(4), "created");
    rooms.listed = [
      room(ID(1), 10_000),
      room(ID(2), 3_600_000),
      room(ID(3), 3_600_000),
      room(ID(4), 3_600_000),
      // No session: a CreateRoom that timed out but happened, for a create nobody retried.
      room(ID(5), GRACE),
      // No session yet: a create in flight has made its room and not stored its session.
      room(ID(6), GRACE - 1),
    ];
    const result = await reconciler("replica-1").reconcile();
    expect(result).toEqual({ ran: true, rooms: 6, deleted: { terminal: 2, missing: 1 } });
    expect(rooms.deleted.sort()).toEqual([roomNameFor(ID(1)), roomNameFor(ID(2)), roomNameFor(ID(5))].sort());
    expect(deletedFor.sort()).toEqual(["missing", "terminal", "terminal"]);
  });

  it("runs on one replica at a time: another holding the lease looks at nothing", async () => {
    const { rooms, reconciler, stored } = await setup();
    await stored(ID(1), "completed");
    rooms.listed = [room(ID(1), 10_000)];
    expect((await reconciler("replica-1").reconcile()).ran).toBe(true);
    rooms.deleted = [];
    expect(await reconciler("replica-2").reconcile()).toEqual({ ran: false, rooms: 0, deleted: { terminal: 0, missing: 0 } });
    expect(rooms.deleted).toEqual([]);
    // The holder itself goes on at its next interval.
    expect((await reconciler("replica-1").reconcile()).ran).toBe(true);
  });

  it("goes on past a room it cannot delete now, reporting it, and tries it again next pass", async () => {
    const { rooms, reconciler, stored, errors } = await setup();
    await stored(ID(1), "completed");
    await stored(ID(2), "cancelled");
    rooms.listed = [room(ID(1), 10_000), room(ID(2), 10_000)];
    rooms.failDeleteOf.add(roomNameFor(ID(1)));
    const first = await reconciler("replica-1").reconcile();
    expect(first.deleted).toEqual({ terminal: 1, missing: 0 });
    expect(errors).toEqual([expect.any(DependencyUnavailableError)]);
    rooms.failDeleteOf.clear();
    expect((await reconciler("replica-1").reconcile()).deleted.terminal).toBe(2);
    expect(rooms.deleted).toContain(roomNameFor(ID(1)));
  });
});
