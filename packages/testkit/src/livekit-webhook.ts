/**
 * LiveKit's webhooks to the service, as LiveKit signs them: the Authorization header is a JWT of the API
 * key whose sha256 claim is the body's hash (base64).
 */
import { createHash } from "node:crypto";
import { AccessToken } from "livekit-server-sdk";
import { LIVEKIT } from "./fixtures.js";

export async function signLiveKitWebhook(
  body: string,
  options: { apiKey?: string; secret?: string; ttl?: number | string } = {},
): Promise<string> {
  const token = new AccessToken(options.apiKey ?? LIVEKIT.apiKey, options.secret ?? LIVEKIT.apiSecret, { ttl: options.ttl ?? 600 });
  token.sha256 = createHash("sha256").update(body).digest("base64");
  return token.toJwt();
}
