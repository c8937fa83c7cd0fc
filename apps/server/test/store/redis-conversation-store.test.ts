/** The conversation store's port contract against the Redis adapter (one Redis, or a Cluster in api:cluster), and its expiry. */
import { describe, expect, it } from "vitest";
import { EMPTY_CONVERSATION } from "../../src/domain/conversation/conversation.js";
import { RedisConversationStore } from "../../src/store/redis/conversation-store.js";
import { RedisWebhookStore } from "../../src/store/redis/customer-webhook-store.js";
import { keyspace } from "../../src/store/redis/keys.js";
import { RedisSessionStore } from "../../src/store/redis/session-store.js";
import { encodeSession } from "../../src/store/session-format.js";
import { conversationStoreContract } from "../contract/conversation-store.contract.js";
import { sessionRecord } from "../support/session-fixtures.js";
import { REDIS_ADAPTER, useRedis } from "./redis-connection.js";

const redis = useRedis();

conversationStoreContract(REDIS_ADAPTER, () => {
  const prefix = `cv${crypto.randomUUID().slice(0, 8)}`;
  return {
    conversations: new RedisConversationStore(redis(), prefix),
    webhooks: new RedisWebhookStore(redis(), prefix),
    timers: new RedisSessionStore(redis(), { prefix }),
  };
});

describe("the Redis conversation store's key", () => {
  it("expires with its session, as each write says", async () => {
    const prefix = `cx${crypto.randomUUID().slice(0, 8)}`;
    const store = new RedisConversationStore(redis(), prefix);
    const id = crypto.randomUUID();
    const expiresAtMs = Date.now() + 60_000;
    const read = await store.readConversation("acct", id, []);
    const write = { accountId: "acct", sessionId: id, version: read.version, fields: {}, events: [], timerAtMs: null };
    await store.writeConversation({ ...write, state: EMPTY_CONVERSATION, expiresAtMs });
    expect(await redis().pexpiretime(keyspace(prefix).conversation(id))).toBe(expiresAtMs);
  });
});

describe("the Redis conversation store's writes while the session is open", () => {
  it("refuses one once the session it reads in the same step is terminal, and lets the timer's through", async () => {
    const prefix = `co${crypto.randomUUID().slice(0, 8)}`;
    const store = new RedisConversationStore(redis(), prefix);
    const session = sessionRecord({ id: crypto.randomUUID(), status: "active", metadata: { status: "completed" } });
    const key = keyspace(prefix).session(session.id);
    await redis().set(key, encodeSession(session));
    const write = async (whileOpen: boolean) => {
      const read = await store.readConversation(session.account_id, session.id, []);
      const base = { accountId: session.account_id, sessionId: session.id, fields: {}, events: [], timerAtMs: null };
      return store.writeConversation({
        ...base,
        version: read.version,
        state: EMPTY_CONVERSATION,
        expiresAtMs: Date.now() + 60_000,
        whileOpen,
      });
    };
    // Metadata that says "completed" is not the session's status.
    expect(await write(true)).toBe(true);
    await redis().set(key, encodeSession({ ...session, status: "cancelled", ended_at: new Date().toISOString() }));
    expect(await write(true)).toBe("ended");
    expect(await write(false)).toBe(true);
  });
});
