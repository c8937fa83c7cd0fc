import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "./verify-webhook.js";

const secret = () => `whsec_${randomBytes(32).toString("base64")}`;
const body = JSON.stringify({ type: "session.ended", timestamp: "2026-11-22T09:27:41.090Z", data: { id: "3fa85f64" } });

/** Headers as the service sends them, signed with each secret given. */
function signed(secrets: string[], at = new Date()) {
  const id = "evt_0c9f2b7d1e4a4b6c8d3e5f7a9b1c2d3e";
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((s) => new Webhook(s).sign(id, at, body)).join(" "),
  };
}

describe("verifyWebhook", () => {
  it("answers the event when the signature verifies, from a string, bytes, or a Headers object", () => {
    const key = secret();
    const headers = signed([key]);
    expect(verifyWebhook(body, headers, key)).toEqual(JSON.parse(body));
    expect(verifyWebhook(Buffer.from(body), headers, key).type).toBe("session.ended");
    expect(verifyWebhook(body, new Headers(headers), key).type).toBe("session.ended");
  });

  it("verifies with either secret while a rotation overlaps", () => {
    const [old, fresh] = [secret(), secret()];
    const headers = signed([fresh, old]);
    expect(verifyWebhook(body, headers, old).type).toBe("session.ended");
    expect(verifyWebhook(body, headers, fresh).type).toBe("session.ended");
  });

  it("throws WebhookVerificationError for another secret, a changed body, a missing header or an old timestamp", () => {
    const key = secret();
    expect(() => verifyWebhook(body, signed([key]), secret())).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body.replace("ended", "active"), signed([key]), key)).toThrow(WebhookVerificationError);
    const { "webhook-signature": _, ...unsigned } = signed([key]);
    expect(() => verifyWebhook(body, unsigned, key)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, signed([key], new Date(Date.now() - 10 * 60_000)), key)).toThrow(WebhookVerificationError);
  });
});
