/**
 * Conversations on Redis: one hash per session in the session's shard (keys.ts), holding the state, its
 * version and the items, Idempotency-Keys and marks beside it, so a change is one script in one slot with
 * the session's timer and the webhook deliveries it causes. The hash expires with its session.
 */
import type { Cluster, Redis } from "ioredis";
import { type ConversationState, TURN_EVENT_TYPES } from "../../domain/conversation/conversation.js";
import type { ConversationRead, ConversationStore, ConversationVersion, ConversationWrite } from "../../domain/conversation/ports.js";
import type { Tracing } from "../../tracing/tracing.js";
import { guard } from "./guard.js";
import { type Keyspace, keyspace, shardOf, timerMember } from "./keys.js";
import { RedisScripts } from "./scripts.js";
import { eventKeys } from "./sessions/context.js";

/** A conversation's version here: the number it was read at, and the account's webhook routes read with it. */
interface RedisVersion {
  ver: number;
  routes: Record<string, string>;
}

export class RedisConversationStore implements ConversationStore {
  private readonly keys: Keyspace;
  private readonly scripts: RedisScripts;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix = "dhs",
    tracing?: Tracing,
  ) {
    this.keys = keyspace(prefix);
    this.scripts = new RedisScripts(redis, tracing);
  }

  /** One round trip: the state and the fields (one HMGET) and, beside it, the account's webhook routes. */
  readConversation(accountId: string, sessionId: string, fields: readonly string[]): Promise<ConversationRead> {
    return guard(async () => {
      const [[ver, state, ...values], routes] = await Promise.all([
        this.redis.hmget(this.keys.conversation(sessionId), "ver", "state", ...fields),
        this.redis.hgetall(this.keys.hookRoutes(accountId)),
      ]);
      const version: RedisVersion = { ver: Number(ver ?? 0), routes };
      return {
        state: state ? (JSON.parse(state) as ConversationState) : undefined,
        version: version as unknown as ConversationVersion,
        fields: values.map((value) => value ?? null),
        takesTurnEvents: Object.values(routes).some(
          (types) => types === "*" || types.split(" ").some((type) => TURN_EVENT_TYPES.includes(type)),
        ),
      };
    });
  }

  writeConversation(write: ConversationWrite): Promise<boolean | "ended"> {
    const { ver, routes } = write.version as unknown as RedisVersion;
    const { accountId, sessionId } = write;
    return guard(async () => {
      const [written] = await this.scripts.run("writeConversation", {
        conversation: this.keys.conversation(sessionId),
        session: this.keys.session(sessionId),
        whileOpen: write.whileOpen === true,
        timers: this.keys.timers(shardOf(sessionId)),
        version: ver,
        state: JSON.stringify(write.state),
        expiresAtMs: write.expiresAtMs,
        timerMember: timerMember(accountId, sessionId, "conversation"),
        timerAtMs: write.timerAtMs ?? "",
        fields: Object.entries(write.fields).flat(),
        ...eventKeys(this.keys, accountId, sessionId, routes, write.events),
      });
      return written === -1 ? "ended" : written === 1;
    });
  }

  readConversationFields(sessionId: string, fields: readonly string[]): Promise<(string | null)[]> {
    if (fields.length === 0) return Promise.resolve([]);
    return guard(async () => (await this.redis.hmget(this.keys.conversation(sessionId), ...fields)).map((value) => value ?? null));
  }
}
