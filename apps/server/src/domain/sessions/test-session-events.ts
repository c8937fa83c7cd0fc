/**
 * The test helpers (contract: sendTestSessionEvent, "Test mode"): what LiveKit or the passing of time
 * would do to a test session, run through the same transitions as LiveKit's webhooks and the timers
 * (compare-and-set, webhook events, timers, room deletion), so a team reaches every status and end reason
 * without media. Test keys only, checked here as well as by the contract's `x-key-modes`, so a live key
 * can never drive a session whichever way the request reached this.
 */
import { randomUUID } from "node:crypto";
import type { TestSessionEvent } from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import { type SessionRecord, TERMINAL } from "./session.js";
import type { SessionContext } from "./session-deps.js";
import type { LifecycleTimer, SessionEvent } from "./session-machine.js";
import type { SessionReader } from "./session-reader.js";
import type { SessionTransitions } from "./session-transitions.js";

// Enough for every timeout of a session to fire once and the ones they schedule after them.
const MAX_TIMERS_FIRED = 20;

/** The timeouts time_passed moves; the digital human's dispatch checks and room deletions keep real time. */
const TIMEOUTS: ReadonlySet<string> = new Set<LifecycleTimer>([
  "join_timeout",
  "departure_timeout",
  "digital_human_timeout",
  "digital_human_lost",
  "max_duration",
]);

/** What a live key calling a test helper is answered, wherever that is found out. */
export function testKeyRequired(): AppError {
  return new AppError("test_key_required", "Test helpers take a test key (dhs_test_...); this is a live key.");
}

export class TestSessionEvents {
  constructor(
    private readonly context: SessionContext,
    private readonly reader: SessionReader,
    private readonly transitions: SessionTransitions,
  ) {}

  async apply(principal: Principal, sessionId: string, body: TestSessionEvent): Promise<SessionRecord> {
    if (principal.mode !== "test") throw testKeyRequired();
    if ((body.type === "time_passed") !== (body.seconds !== undefined)) {
      const message = body.type === "time_passed" ? "is required with time_passed" : "is allowed with time_passed only";
      throw new AppError("validation_failed", [{ location: "body", path: "seconds", message }]);
    }
    if ((body.type === "participant_turn") !== (body.text !== undefined)) {
      const message = body.type === "participant_turn" ? "is required with participant_turn" : "is allowed with participant_turn only";
      throw new AppError("validation_failed", [{ location: "body", path: "text", message }]);
    }
    if (body.type === "participant_turn") {
      const turns = this.context.participantTurns;
      if (!turns) throw new Error("participant_turn needs the conversation, which this server was not given");
      await turns.testTurn(principal, sessionId, body.text ?? "");
      return this.reader.find(principal, sessionId);
    }
    const record = await this.reader.find(principal, sessionId);
    if (body.type === "time_passed") return this.timePassed(record, (body.seconds ?? 0) * 1000);
    // As if LiveKit closed the room: it is closed for real first (as endSession does), so no test room
    // outlives its session; LiveKit unreachable leaves the session unchanged.
    if (body.type === "room_finished" && !TERMINAL.has(record.status)) await this.context.rooms.deleteRoom(record.room_name);
    const type = body.type;
    const result = await this.transitions.apply(record.account_id, record.id, ({ record: current }) => sessionEventOf(type, current));
    return result?.session ?? record;
  }

  /**
   * Fires, in due order, the session's timeouts due within `ms` from now (each may cancel or schedule
   * others, so they are read again after each), then brings the later ones `ms` closer: as if that much
   * time had passed for this session alone.
   */
  private async timePassed(record: SessionRecord, ms: number): Promise<SessionRecord> {
    const { store } = this.context;
    const timeouts = async (session: SessionRecord) =>
      (await store.sessionTimers(session.account_id, session.id)).filter((t) => TIMEOUTS.has(t.timer)).sort((a, b) => a.atMs - b.atMs) as {
        timer: LifecycleTimer;
        atMs: number;
      }[];
    let session = record;
    const horizon = this.context.now().getTime() + ms;
    for (let fired = 0; fired < MAX_TIMERS_FIRED && !TERMINAL.has(session.status); fired++) {
      const next = (await timeouts(session))[0];
      if (!next || next.atMs > horizon) break;
      const result = await this.transitions.apply(session.account_id, session.id, { type: next.timer });
      if (!result) break;
      session = result.session;
      // A timeout whose condition no longer held changed nothing and is still there: it is spent.
      const still = (await timeouts(session)).find((t) => t.timer === next.timer && t.atMs === next.atMs);
      if (still) await store.cancelTimer(session.account_id, session.id, next.timer);
    }
    if (!TERMINAL.has(session.status)) {
      const now = this.context.now().getTime();
      const later = await timeouts(session);
      await store.scheduleTimers(
        session.account_id,
        session.id,
        later.map(({ timer, atMs }) => ({ timer, atMs: Math.max(now, atMs - ms) })),
      );
    }
    return session;
  }
}

/** The machine's event for a helper's type, given the session as stored (whose connection leaves). */
function sessionEventOf(type: Exclude<TestSessionEvent["type"], "time_passed" | "participant_turn">, record: SessionRecord): SessionEvent {
  switch (type) {
    case "participant_joined":
      // A new connection, as a reload or a reconnect would make.
      return { type: "participant_joined", sid: `PA_test_${randomUUID().slice(0, 12)}` };
    case "participant_left":
      return { type: "participant_left", sid: record.participant_sid ?? "" };
    case "digital_human_joined":
    case "digital_human_left":
    case "room_finished":
      return { type };
  }
}
