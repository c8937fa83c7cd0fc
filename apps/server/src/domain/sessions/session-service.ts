/**
 * The sessions' use cases behind one entry for the HTTP layer and the workers: create (create-session.ts),
 * get, refresh and list (session-queries.ts), end (end-session.ts), LiveKit's events
 * (livekit-room-events.ts) and timers, each change through the state machine (session-transitions.ts).
 */
import type { Session, SessionCreate, SessionSummary, TestSessionEvent } from "@dhs/contract";
import { NO_TRACING } from "../../tracing/tracing.js";
import type { Principal } from "../accounts/api-keys.js";
import type { ListPosition } from "../list-order.js";
import { CreateSession } from "./create-session.js";
import { EndSession } from "./end-session.js";
import { isFeatureTimer } from "./feature-timers.js";
import { type LiveKitEventOutcome, LiveKitRoomEvents } from "./livekit-room-events.js";
import type { DueTimer, ListQuery } from "./ports.js";
import type { CreateResult, RoomEvent, SessionContext, SessionServiceDeps } from "./session-deps.js";
import { SessionQueries } from "./session-queries.js";
import { SessionReader } from "./session-reader.js";
import { SessionTransitions } from "./session-transitions.js";
import { TestSessionEvents } from "./test-session-events.js";

export type { CreateResult, RoomEvent, SessionServiceDeps, SessionSettings } from "./session-deps.js";

export class SessionService {
  private readonly creates: CreateSession;
  private readonly queries: SessionQueries;
  private readonly ends: EndSession;
  private readonly roomEvents: LiveKitRoomEvents;
  private readonly transitions: SessionTransitions;
  private readonly testEvents: TestSessionEvents;
  private readonly reader: SessionReader;
  private readonly context: SessionContext;

  constructor(deps: SessionServiceDeps) {
    const context = { ...deps, now: deps.now ?? (() => new Date()), tracing: deps.tracing ?? NO_TRACING };
    this.context = context;
    const reader = new SessionReader(context);
    this.reader = reader;
    this.transitions = new SessionTransitions(context);
    this.testEvents = new TestSessionEvents(context, reader, this.transitions);
    this.creates = new CreateSession(context, reader, this.transitions);
    this.queries = new SessionQueries(context, reader);
    this.ends = new EndSession(context, reader, this.transitions);
    this.roomEvents = new LiveKitRoomEvents(this.transitions);
  }

  create(principal: Principal, idempotencyKey: string, body: SessionCreate): Promise<CreateResult> {
    return this.creates.create(principal, idempotencyKey, body);
  }

  get(principal: Principal, sessionId: string): Promise<Session> {
    return this.queries.get(principal, sessionId);
  }

  refreshToken(principal: Principal, sessionId: string): Promise<Session> {
    return this.queries.refreshToken(principal, sessionId);
  }

  list(principal: Principal, query: Omit<ListQuery, "oldestCreatedMs">): Promise<{ items: SessionSummary[]; next: ListPosition | null }> {
    return this.queries.list(principal, query);
  }

  end(principal: Principal, sessionId: string): Promise<Session> {
    return this.ends.end(principal, sessionId);
  }

  /**
   * The digital human ended the conversation (its end_session tool, after its goodbye): the session ends
   * (`digital_human_ended`) and its room is deleted as every ended session's is. A terminal one is left as it is.
   */
  async endByDigitalHuman(accountId: string, sessionId: string): Promise<void> {
    await this.transitions.apply(accountId, sessionId, { type: "digital_human_ended" });
  }

  /** A test helper's event for a test session (test keys only), and the session after it. */
  async testEvent(principal: Principal, sessionId: string, event: TestSessionEvent): Promise<Session> {
    return this.reader.view(await this.testEvents.apply(principal, sessionId, event));
  }

  onLiveKitEvent(eventId: string, accountId: string, sessionId: string, event: RoomEvent): Promise<LiveKitEventOutcome> {
    return this.roomEvents.onLiveKitEvent(eventId, accountId, sessionId, event);
  }

  /** A timer is due (the sweeper): an event of the machine. */
  async onTimer(due: DueTimer): Promise<void> {
    const { timer } = due;
    // The features fire their own timers (the sweeper routes them); the machine never sees them.
    if (isFeatureTimer(timer)) throw new Error(`${timer} is not a timer of the session machine`);
    // A trace of its own, linked to the change that scheduled the timer (stored with the session).
    await this.context.tracing.span(
      "session.timer",
      { "dhs.timer": due.timer, "dhs.session.id": due.sessionId, "dhs.account.id": due.accountId },
      (span) =>
        this.transitions.apply(due.accountId, due.sessionId, (read) => {
          span.link(read.record.trace_parent);
          return { type: timer };
        }),
      { root: true },
    );
  }
}
