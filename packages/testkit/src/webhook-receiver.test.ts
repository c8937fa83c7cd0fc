import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { WebhookReceiver } from "./webhook-receiver.js";

const SECRET = `whsec_${Buffer.from("a secret of thirty-two bytes!!!!").toString("base64")}`;

async function deliver(url: string, id: string, body: object, secret = SECRET): Promise<Response> {
  const raw = JSON.stringify(body);
  const timestamp = new Date();
  const signature = new Webhook(secret).sign(id, timestamp, raw);
  const headers = { "webhook-id": id, "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)), "webhook-signature": signature };
  return fetch(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: raw });
}

describe("WebhookReceiver", () => {
  const started: WebhookReceiver[] = [];
  const start = async (receiver: WebhookReceiver) => {
    started.push(receiver);
    return receiver.start();
  };
  afterEach(async () => {
    await Promise.all(started.splice(0).map((receiver) => receiver.stop()));
  });

  it("keeps each delivery, says which secret verified it, and answers 200 by default", async () => {
    const receiver = await start(new WebhookReceiver({ secrets: ["whsec_b3RoZXIgc2VjcmV0IG9mIDMyIGJ5dGVzISEhISEhISE=", SECRET] }));
    expect((await deliver(receiver.url, "msg_1", { type: "session.created", data: { id: "s" } })).status).toBe(200);
    expect((await deliver(receiver.url, "msg_2", { type: "session.ended" }, "whsec_Zm9yZ2VkIGZvcmdlZCBmb3JnZWQgZm9yZ2VkIQ==")).status).toBe(
      200,
    );
    expect(receiver.received.map((r) => [r.id, r.type, r.verifiedWith, r.status])).toEqual([
      ["msg_1", "session.created", 1, 200],
      ["msg_2", "session.ended", -1, 200],
    ]);
    expect(receiver.of("session.created")[0]?.body).toEqual({ type: "session.created", data: { id: "s" } });
    expect(receiver.received[0]?.headers["webhook-id"]).toBe("msg_1");
  });

  it("answers as told, counts what it acknowledged and what came twice", async () => {
    const receiver = await start(
      new WebhookReceiver({ answer: (d) => (d.id === "msg_bad" ? { status: 503, headers: { "Retry-After": "7" } } : { status: 204 }) }),
    );
    const refused = await deliver(receiver.url, "msg_bad", { type: "x" });
    expect([refused.status, refused.headers.get("retry-after")]).toEqual([503, "7"]);
    await deliver(receiver.url, "msg_ok", { type: "x" });
    await deliver(receiver.url, "msg_ok", { type: "x" });
    expect(receiver.acknowledged("x").map((r) => r.id)).toEqual(["msg_ok", "msg_ok"]);
    expect(receiver.duplicates()).toBe(1);
  });

  it("hangs or closes the connection when told, and refuses connections while stopped", async () => {
    const receiver = await start(new WebhookReceiver({ answer: () => "close" }));
    await expect(deliver(receiver.url, "msg_c", { type: "x" })).rejects.toThrow();
    receiver.answer = () => "hang";
    const hung = deliver(receiver.url, "msg_h", { type: "x" }).catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await receiver.stop();
    expect(await hung).toBeInstanceOf(Error);
    await expect(deliver(receiver.url, "msg_down", { type: "x" })).rejects.toThrow();
    await receiver.restart();
    receiver.answer = () => ({ status: 200 });
    expect((await deliver(receiver.url, "msg_up", { type: "x" })).status).toBe(200);
    expect(receiver.received.map((r) => [r.id, r.status])).toEqual([
      ["msg_c", 0],
      ["msg_h", 0],
      ["msg_up", 200],
    ]);
  });

  it("keeps only ids, arrivals and answers without bodies", async () => {
    const receiver = await start(new WebhookReceiver({ keepBodies: false, secrets: [SECRET], answer: () => ({ status: 204 }) }));
    const before = Date.now();
    expect((await deliver(receiver.url, "msg_1", { type: "session.created" })).status).toBe(204);
    expect(receiver.received[0]).toMatchObject({ id: "msg_1", type: "", raw: "", body: {}, verifiedWith: -1, status: 204 });
    expect(receiver.received[0]?.at).toBeGreaterThanOrEqual(before);
  });
});
