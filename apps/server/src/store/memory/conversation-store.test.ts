import { describe, expect, it } from "vitest";
import { conversationStoreContract } from "../../../test/contract/conversation-store.contract.js";
import { EMPTY_CONVERSATION } from "../../domain/conversation/conversation.js";
import { MemoryConversationStore } from "./conversation-store.js";
import { MemoryWebhookStore } from "./customer-webhook-store.js";
import { MemorySessionStore } from "./session-store.js";

conversationStoreContract("memory", () => {
  const webhooks = new MemoryWebhookStore();
  const timers = new MemorySessionStore(Date.now, webhooks);
  return { conversations: new MemoryConversationStore(webhooks, timers.state), webhooks, timers };
});

describe("the memory conversation store", () => {
  it("forgets a conversation once it expired", async () => {
    let now = 1_000;
    const webhooks = new MemoryWebhookStore(() => now);
    const store = new MemoryConversationStore(webhooks, new MemorySessionStore(() => now, webhooks).state, () => now);
    const read = await store.readConversation("acct", "s", []);
    const write = {
      accountId: "acct",
      sessionId: "s",
      version: read.version,
      fields: { "i:a": "x" },
      events: [],
      expiresAtMs: 2_000,
      timerAtMs: null,
    };
    expect(await store.writeConversation({ ...write, state: EMPTY_CONVERSATION })).toBe(true);
    expect(await store.readConversationFields("s", ["i:a"])).toEqual(["x"]);
    now = 2_000;
    expect(await store.readConversationFields("s", ["i:a"])).toEqual([null]);
  });
});
