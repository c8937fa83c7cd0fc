import { createHash, createHmac } from "node:crypto";
import { AccessToken, WebhookReceiver } from "livekit-server-sdk";
import { describe, expect, it } from "vitest";
import { bodyMatches, InvalidWebhookError, WebhookSignature } from "./webhook-signature.js";

const KEY = "devkey";
const SECRET = "secret-that-is-long-enough-for-hs256";
const BODY = JSON.stringify({ event: "room_finished", id: "EV_1", room: { name: "dhs-x" } });
const HASH = createHash("sha256").update(BODY).digest("base64");

/** Signed as LiveKit signs a webhook: the SDK's AccessToken with the body's hash. */
async function sdkSigned(options: { key?: string; secret?: string; ttl?: number | string; sha256?: string } = {}): Promise<string> {
  const token = new AccessToken(options.key ?? KEY, options.secret ?? SECRET, { ttl: options.ttl ?? 600 });
  token.sha256 = options.sha256 ?? HASH;
  return token.toJwt();
}

/** A JWT signed by hand, for what no SDK writes. */
function handSigned(header: Record<string, unknown>, claims: Record<string, unknown>, secret = SECRET): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${part(header)}.${part(claims)}`;
  const algorithm = header.alg === "HS512" ? "sha512" : "sha256";
  return `${unsigned}.${createHmac(algorithm, secret).update(unsigned).digest("base64url")}`;
}

const now = () => Math.floor(Date.now() / 1000);
const signature = new WebhookSignature(KEY, SECRET);
const sdk = new WebhookReceiver(KEY, SECRET);

/** Ours: the body the signature covers, or refused. */
async function ours(authorization: string | undefined, body = BODY): Promise<Outcome> {
  try {
    return bodyMatches(Buffer.from(body), await signature.signedSha256(authorization)) ? "accepted" : "refused";
  } catch (error) {
    if (error instanceof InvalidWebhookError) return "refused";
    throw error;
  }
}

/** livekit-server-sdk's WebhookReceiver on the same delivery. */
async function theSdks(authorization: string | undefined, body = BODY): Promise<Outcome> {
  try {
    await sdk.receive(body, authorization);
    return "accepted";
  } catch {
    return "refused";
  }
}

type Outcome = "accepted" | "refused";
const CASES: [string, Outcome, () => Promise<string | undefined>][] = [
  ["signed by the SDK", "accepted", () => sdkSigned()],
  ["expired a minute ago", "refused", () => sdkSigned({ ttl: -60 })],
  ["expired within the clocks' leeway", "accepted", () => sdkSigned({ ttl: -5 })],
  ["signed with another secret", "refused", () => sdkSigned({ secret: "another-secret-that-is-long-enough" })],
  ["issued by another API key", "refused", () => sdkSigned({ key: "another-key" })],
  ["signing another body", "refused", () => sdkSigned({ sha256: createHash("sha256").update("{}").digest("base64") })],
  ["with no exp", "refused", async () => handSigned({ alg: "HS256", typ: "JWT" }, { iss: KEY, sha256: HASH })],
  [
    "not yet valid (nbf a minute ahead)",
    "refused",
    async () => handSigned({ alg: "HS256" }, { iss: KEY, sha256: HASH, exp: now() + 600, nbf: now() + 60 }),
  ],
  [
    "alg none",
    "refused",
    async () =>
      `${handSigned({ alg: "none" }, { iss: KEY, sha256: HASH, exp: now() + 600 })
        .split(".")
        .slice(0, 2)
        .join(".")}.`,
  ],
  ["HS512 with the same secret", "refused", async () => handSigned({ alg: "HS512" }, { iss: KEY, sha256: HASH, exp: now() + 600 })],
  ["signing no body (a participant's token)", "refused", async () => handSigned({ alg: "HS256" }, { iss: KEY, exp: now() + 600 })],
  ["not a JWT", "refused", async () => "not-a-jwt"],
  ["absent", "refused", async () => undefined],
];

describe("WebhookSignature, against livekit-server-sdk's WebhookReceiver", () => {
  it.each(CASES)("%s: %s as the SDK decides", async (_case, want, sign) => {
    const authorization = await sign();
    expect(await ours(authorization)).toBe(want);
    // HS512 is refused by ours alone: the SDK takes any HMAC its secret verifies (RFC 8725 asks for one).
    if (_case !== "HS512 with the same secret") expect(await theSdks(authorization)).toBe(want);
  });

  it("refuses a signed token when the body is not the one it signs", async () => {
    const authorization = await sdkSigned();
    expect(await ours(authorization, BODY.replace("EV_1", "EV_2"))).toBe("refused");
    expect(await theSdks(authorization, BODY.replace("EV_1", "EV_2"))).toBe("refused");
  });

  it("says why it refused, for the request's log line", async () => {
    await expect(signature.signedSha256(undefined)).rejects.toThrow("authorization header is empty");
    await expect(signature.signedSha256(await sdkSigned({ ttl: -60 }))).rejects.toThrow(/exp/);
    await expect(signature.signedSha256(await sdkSigned({ secret: "another-secret-that-is-long-enough" }))).rejects.toThrow(/signature/);
  });
});
