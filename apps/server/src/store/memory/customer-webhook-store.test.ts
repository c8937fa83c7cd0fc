import { webhookStoreContract } from "../../../test/contract/webhook-store.contract.js";
import { MemoryWebhookStore } from "./customer-webhook-store.js";
import { MemorySessionStore } from "./session-store.js";

webhookStoreContract("memory", async () => {
  // The session store queues its changes' events in the webhook store's maps, as createStores wires them.
  const webhooks = new MemoryWebhookStore();
  const sessions = new MemorySessionStore(Date.now, webhooks);
  return { webhooks, sessions, close: () => sessions.close() };
});
