/**
 * The conversation store's port (domain/conversation/ports.ts) as every adapter must keep it: run on
 * memory (beside the adapter) and on Redis and Redis Cluster (test/store). A write is a compare-and-set
 * of the state with its fields, its webhook events and its timer, all or nothing.
 */
import { describe, expect, it } from "vitest";
import { type ConversationState, EMPTY_CONVERSATION } from "../../src/domain/conversation/conversation.js";
import type { ConversationStore, ConversationWrite } from "../../src/domain/conversation/ports.js";
import type { OutboundEvent, WebhookEndpointRecord, WebhookStore } from "../../src/domain/customer-webhooks/ports.js";
import type { TimerQueue } from "../../src/domain/sessions/ports.js";

export interface ConversationAdapter {
  conversations: ConversationStore;
  webhooks: WebhookStore;
  timers: TimerQueue;
}

const HOUR = 3_600_000;

function endpoint(accountId: string, eventTypes: WebhookEndpointRecord["eventTypes"]): WebhookEndpointRecord {
  return {
    id: `we_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
    accountId,
    url: "https://example.com/hooks",
    eventTypes,
    description: null,
    status: "enabled",
    disabledReason: null,
    createdAtMs: Date.now(),
    secrets: [{ secret: "whsec_test", expiresAtMs: null }],
    failingSinceMs: null,
  };
}

function turnEvent(sessionId: string): OutboundEvent {
  const body = JSON.stringify({
    type: "session.participant_turn",
    mode: "live",
    timestamp: new Date().toISOString(),
    data: { session_id: sessionId },
  });
  return {
    id: `evt_${crypto.randomUUID().replaceAll("-", "")}`,
    type: "session.participant_turn",
    createdAtMs: Date.now(),
    body,
    retainMs: HOUR,
  };
}

export function conversationStoreContract(adapter: string, make: () => ConversationAdapter): void {
  const write = (
    a: ConversationAdapter,
    read: Awaited<ReturnType<ConversationStore["readConversation"]>>,
    w: Partial<ConversationWrite> & { sessionId: string; accountId: string },
  ) =>
    a.conversations.writeConversation({
      version: read.version,
      state: { ...EMPTY_CONVERSATION, seq: 1 },
      fields: {},
      events: [],
      expiresAtMs: Date.now() + HOUR,
      timerAtMs: null,
      ...w,
    });

  describe(`the ${adapter} conversation store`, () => {
    it("reads nothing for a new session, writes at the version read, and refuses a stale write whole", async () => {
      const a = make();
      const ids = { accountId: `acct_${crypto.randomUUID().slice(0, 8)}`, sessionId: crypto.randomUUID() };
      const first = await a.conversations.readConversation(ids.accountId, ids.sessionId, ["i:x"]);
      expect(first).toMatchObject({ state: undefined, fields: [null], takesTurnEvents: false });
      const state: ConversationState = { ...EMPTY_CONVERSATION, seq: 2, agent: "agent-1" };
      expect(await write(a, first, { ...ids, state, fields: { "i:x": "one" } })).toBe(true);
      // Another writer read before that write: refused, and nothing of it is stored.
      expect(
        await write(a, first, {
          ...ids,
          state: { ...state, seq: 9 },
          fields: { "i:x": "two", "i:y": "two" },
          events: [turnEvent(ids.sessionId)],
        }),
      ).toBe(false);
      const second = await a.conversations.readConversation(ids.accountId, ids.sessionId, ["i:x", "i:y"]);
      expect(second.state).toEqual(state);
      expect(second.fields).toEqual(["one", null]);
      expect(await a.conversations.readConversationFields(ids.sessionId, ["i:y", "i:x"])).toEqual([null, "one"]);
      expect(await write(a, second, { ...ids, state: { ...state, seq: 3 }, fields: { "i:y": "three" } })).toBe(true);
      expect((await a.conversations.readConversation(ids.accountId, ids.sessionId, ["i:y"])).fields).toEqual(["three"]);
    });

    it("queues the write's events for the account's endpoints that take them, and says whether any takes per-turn events", async () => {
      const a = make();
      const accountId = `acct_${crypto.randomUUID().slice(0, 8)}`;
      const sessionId = crypto.randomUUID();
      await a.webhooks.createEndpoint(endpoint(accountId, ["session.ended"]), 10);
      const none = await a.conversations.readConversation(accountId, sessionId, []);
      expect(none.takesTurnEvents).toBe(false);
      expect(await write(a, none, { accountId, sessionId, events: [turnEvent(sessionId)] })).toBe(true);
      expect(await a.webhooks.claimDueAccounts(Date.now() + 1000, 1000, 100)).not.toContainEqual(expect.objectContaining({ accountId }));

      await a.webhooks.createEndpoint(endpoint(accountId, ["session.participant_turn"]), 10);
      const some = await a.conversations.readConversation(accountId, sessionId, []);
      expect(some.takesTurnEvents).toBe(true);
      expect(await write(a, some, { accountId, sessionId, state: { ...EMPTY_CONVERSATION, seq: 2 }, events: [turnEvent(sessionId)] })).toBe(
        true,
      );
      const claimed = await a.webhooks.claimDueAccounts(Date.now() + 1000, 1000, 100);
      expect(claimed).toContainEqual(expect.objectContaining({ accountId }));

      const every = `acct_${crypto.randomUUID().slice(0, 8)}`;
      await a.webhooks.createEndpoint(endpoint(every, ["*"]), 10);
      expect((await a.conversations.readConversation(every, sessionId, [])).takesTurnEvents).toBe(true);
    });

    it("sets the session's conversation timer with the write, and removes it when none is needed", async () => {
      const a = make();
      const ids = { accountId: `acct_${crypto.randomUUID().slice(0, 8)}`, sessionId: crypto.randomUUID() };
      const at = Date.now() + 5_000;
      const first = await a.conversations.readConversation(ids.accountId, ids.sessionId, []);
      await write(a, first, { ...ids, timerAtMs: at });
      expect(await a.timers.sessionTimers(ids.accountId, ids.sessionId)).toEqual([{ timer: "conversation", atMs: at }]);
      const second = await a.conversations.readConversation(ids.accountId, ids.sessionId, []);
      await write(a, second, { ...ids, state: { ...EMPTY_CONVERSATION, seq: 2 }, timerAtMs: null });
      expect(await a.timers.sessionTimers(ids.accountId, ids.sessionId)).toEqual([]);
    });
  });
}
