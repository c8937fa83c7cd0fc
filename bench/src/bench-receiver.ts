/**
 * The customer's webhook endpoint the service delivers to while it is measured: the testkit's receiver in
 * the load generator's process, answering 204 and keeping only each delivery's id and arrival (no
 * bodies read or verified, so it costs next to nothing), registered for each bench account.
 */
import { WebhookReceiver } from "@dhs/testkit";
import { accounts } from "./settings.js";
import type { Stack } from "./stack.js";

export async function registerReceiver(stack: Stack): Promise<WebhookReceiver> {
  const receiver = await new WebhookReceiver({ keepBodies: false, answer: () => ({ status: 204 }) }).start();
  for (const account of accounts) {
    const registered = await fetch(`${stack.serverUrl}/v1/webhook-endpoints`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url }),
    });
    if (registered.status !== 201)
      throw new Error(`registering the bench's webhook endpoint: ${registered.status} ${await registered.text()}`);
  }
  return receiver;
}

/** Resolves once the receiver has had no delivery for a second. */
export async function quiet(receiver: WebhookReceiver): Promise<void> {
  let seen = -1;
  while (seen !== receiver.received.length) {
    seen = receiver.received.length;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
