/**
 * The safety net under rooms that outlive their sessions. A terminal session owes its room's deletion
 * (the state machine's `room_deletion` timer retries it until LiveKit confirms), but some rooms no
 * session knows of: a CreateRoom that timed out yet happened, for a create nobody retried; an
 * obligation lost with a process killed between storing the end and scheduling the retry; a session
 * whose retention ended while LiveKit was still down. Every interval, one replica at a time (a lease in the store) lists
 * LiveKit's rooms of this deployment and deletes each whose session is terminal, or missing once the
 * room is older than the grace period: a create in flight has made its room but not stored its session
 * yet, and the grace outlasts any create (it holds its key at most the idempotency lock's TTL).
 */

import type { Leases, RoomService, SessionRecords } from "../domain/sessions/ports.js";
import { TERMINAL } from "../domain/sessions/session.js";
import { RepeatingPass } from "./repeating-pass.js";

export interface ReconcilerOptions {
  intervalMs: number;
  /** A room whose session is missing is left alone until it is this old. */
  graceMs: number;
  /** This replica, as the lease's holder. */
  holder: string;
  now?: () => number;
  onError?: (error: unknown) => void;
  /** A room deleted, and why. */
  onDeleted?: (reason: "terminal" | "missing") => void;
}

export interface ReconcileResult {
  /** False when another replica holds the lease: nothing was looked at. */
  ran: boolean;
  rooms: number;
  deleted: { terminal: number; missing: number };
}

const LEASE = "room-reconciler";

export class RoomReconciler {
  private readonly repeating: RepeatingPass;

  constructor(
    private readonly store: Leases & Pick<SessionRecords, "getSession">,
    private readonly rooms: RoomService,
    private readonly options: ReconcilerOptions,
  ) {
    this.repeating = new RepeatingPass(() => this.reconcile(), options.intervalMs, options.onError);
  }

  start(): void {
    this.repeating.start();
  }

  stop(): Promise<void> {
    return this.repeating.stop();
  }

  /** One pass, if this replica gets the lease (held for one interval). */
  async reconcile(): Promise<ReconcileResult> {
    const { store, rooms, options } = this;
    const now = options.now ?? Date.now;
    const result: ReconcileResult = { ran: false, rooms: 0, deleted: { terminal: 0, missing: 0 } };
    if (!(await store.acquireLease(LEASE, options.holder, options.intervalMs))) return result;
    result.ran = true;
    const listed = await rooms.listSessionRooms();
    result.rooms = listed.length;
    for (const room of listed) {
      try {
        const session = await store.getSession(room.accountId, room.sessionId);
        let reason: "terminal" | "missing" | undefined;
        if (session) reason = TERMINAL.has(session.status) ? "terminal" : undefined;
        else reason = now() - room.createdAtMs >= options.graceMs ? "missing" : undefined;
        if (reason === undefined) continue;
        await rooms.deleteRoom(room.name);
        result.deleted[reason]++;
        options.onDeleted?.(reason);
      } catch (error) {
        // One room that cannot be looked at or deleted now is tried again next pass; the others go on.
        options.onError?.(error);
      }
    }
    return result;
  }
}
