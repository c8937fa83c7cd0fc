/**
 * Stored sessions on Redis (SessionRecords; their lists are session-list.ts's, their places among the open
 * ones open-sessions.ts's): a session is one JSON string in its shard, read by id, and changed by
 * compare-and-set with its timers, its LiveKit event and the webhook events it causes in one script
 * (session-records-scripts.ts). An end is that script, which lists the session among its day's ended ones,
 * then gives back its place and counts its usage: a crash between the two leaves the place held until the
 * repair (a timer of the ended session, or a create at the cap, runs it).
 */
import type { Persona } from "../../../domain/digital-humans/persona.js";
import type { ListQuery, SessionChange, SessionRecords, SessionSnapshot, SessionVersion } from "../../../domain/sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../../../domain/sessions/session.js";
import { decodeSession, encodeSession } from "../../session-format.js";
import { skippable } from "../../skipped-steps.js";
import { guard } from "../guard.js";
import { dayOf, shardOf, timerMember } from "../keys.js";
import { eventKeys, ownSession, type SessionStoreContext } from "./context.js";
import type { OpenSessions } from "./open-sessions.js";
import type { RedisSessionList } from "./session-list.js";

/** A session's version here: the JSON it was read as, and the account's webhook routes read with it. */
interface RedisVersion {
  json: string;
  routes: Record<string, string>;
}

export class RedisSessionRecords implements SessionRecords {
  constructor(
    private readonly context: SessionStoreContext,
    private readonly places: OpenSessions,
    private readonly list: RedisSessionList,
  ) {}

  /** The session if it is this account's: sessions are kept by id, so another account's is not found. */
  getSession(accountId: string, sessionId: string): Promise<SessionRecord | undefined> {
    const { redis, keys } = this.context;
    return guard(async () => {
      const json = await redis.get(keys.session(sessionId));
      return json === null ? undefined : ownSession(json, accountId, sessionId);
    });
  }

  findSession(sessionId: string): Promise<SessionRecord | undefined> {
    const { redis, keys } = this.context;
    return guard(async () => {
      const json = await redis.get(keys.session(sessionId));
      return json === null ? undefined : decodeSession(json, sessionId);
    });
  }

  sessionPersona(sessionId: string): Promise<Persona | undefined> {
    const { redis, keys } = this.context;
    return guard(async () => {
      const json = await redis.get(keys.persona(sessionId));
      return json === null ? undefined : (JSON.parse(json) as Persona);
    });
  }

  /**
   * One round trip: the session with its ending mark and the LiveKit event's mark (one MGET in its shard)
   * and, beside it, the account's webhook routes, which a change that causes events records them by.
   */
  readForChange(accountId: string, sessionId: string, livekitEventId?: string): Promise<SessionSnapshot | undefined> {
    const { redis, keys } = this.context;
    return guard(async () => {
      const marks = [keys.ending(sessionId), ...(livekitEventId === undefined ? [] : [keys.livekitEvent(sessionId, livekitEventId)])];
      const [[json, ending, applied], routes] = await Promise.all([
        redis.mget(keys.session(sessionId), ...marks),
        redis.hgetall(keys.hookRoutes(accountId)),
      ]);
      if (json === null || json === undefined) return undefined;
      const record = ownSession(json, accountId, sessionId);
      if (!record) return undefined;
      const version: RedisVersion = { json, routes };
      return { record, version: version as unknown as SessionVersion, ending: ending !== null, eventApplied: applied != null };
    });
  }

  replaceSession(change: SessionChange): Promise<boolean> {
    const { keys, scripts, afterStep } = this.context;
    const { record, previousStatus, events, timers, livekitEvent } = change;
    const { json, routes } = change.version as unknown as RedisVersion;
    const accountId = record.account_id;
    const ends = TERMINAL.has(record.status) && !TERMINAL.has(previousStatus);
    return guard(async () => {
      const createdMs = Date.parse(record.created_at);
      const shard = shardOf(record.id);
      const [replaced] = await scripts.run("replaceSession", {
        session: keys.session(record.id),
        ended: keys.ended(accountId, shard, dayOf(createdMs)),
        timers: keys.timers(shard),
        livekitEvent: keys.livekitEvent(record.id, livekitEvent?.id ?? ""),
        persona: keys.persona(record.id),
        history: keys.history(shard),
        keepsHistory: this.context.keepsHistory,
        version: json,
        json: encodeSession(record),
        id: record.id,
        createdMs,
        expiresAtMs: change.expiresAtMs ?? "",
        nowMs: Date.now(),
        livekitEventTtlMs: livekitEvent?.ttlMs ?? "",
        cancel: timers.cancel.map((timer) => timerMember(accountId, record.id, timer)),
        schedule: timers.schedule.flatMap(({ timer, atMs }) => [atMs, timerMember(accountId, record.id, timer)]),
        ...eventKeys(keys, accountId, record.id, routes, events),
      });
      if (replaced !== 1) return false;
      if (ends) {
        await afterStep("end:replaced");
        // The end stands: should giving back its place fail, the repair does it.
        await skippable(this.places.settle(record, change.usage), "open_place_release", this.context.stepSkipped);
      }
      return true;
    });
  }

  rememberEvent(sessionId: string, eventId: string, ttlMs: number): Promise<void> {
    const { redis, keys } = this.context;
    return guard(async () => {
      await redis.set(keys.livekitEvent(sessionId, eventId), "1", "PX", ttlMs);
    });
  }

  listSessions(accountId: string, query: ListQuery): Promise<SessionRecord[]> {
    return this.list.listSessions(accountId, query);
  }

  openSessions(accountId: string): Promise<number> {
    return this.places.openSessions(accountId);
  }

  settleEnded(record: SessionRecord): Promise<void> {
    return this.places.settleEnded(record);
  }
}
