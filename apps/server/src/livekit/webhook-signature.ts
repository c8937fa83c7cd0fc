/**
 * The signature of LiveKit's webhooks: a JWT in Authorization, signed with the deployment's LiveKit API
 * secret, whose `sha256` claim is the base64 SHA-256 of the body. Checked as livekit-server-sdk's
 * WebhookReceiver checks it (HS256, issuer = the API key, `exp` required, 10 s of leeway for clocks,
 * `nbf` when present), with jose, which the SDK uses underneath, called directly: the SDK builds a key
 * from the secret's text on every call, this builds it once. Its tests sign with the SDK's own
 * AccessToken and WebhookReceiver, so a change in how LiveKit signs breaks a test, not production.
 */
import { createHash, createSecretKey, type KeyObject } from "node:crypto";
import { errors, jwtVerify } from "jose";

export class InvalidWebhookError extends Error {
  override readonly name = "InvalidWebhookError";
}

/** The SDK's own leeway (livekit-server-sdk's TokenVerifier). */
const CLOCK_TOLERANCE_S = 10;

export class WebhookSignature {
  private readonly key: KeyObject;

  constructor(
    private readonly apiKey: string,
    apiSecret: string,
  ) {
    this.key = createSecretKey(Buffer.from(apiSecret, "utf8"));
  }

  /**
   * The body hash the Authorization header's JWT signs, once the JWT verifies; InvalidWebhookError, saying
   * why, when it does not. "" for a verified token that signs no body (a participant's, say): it matches none.
   */
  async signedSha256(authorization: string | undefined): Promise<string> {
    if (!authorization) throw new InvalidWebhookError("authorization header is empty");
    try {
      const { payload } = await jwtVerify(authorization, this.key, {
        issuer: this.apiKey,
        algorithms: ["HS256"],
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ["exp"],
      });
      return typeof payload.sha256 === "string" ? payload.sha256 : "";
    } catch (error) {
      if (error instanceof errors.JOSEError) throw new InvalidWebhookError(error.message);
      throw new InvalidWebhookError(error instanceof Error ? error.message : String(error));
    }
  }
}

/** Whether the body is the one a verified signature signs. */
export function bodyMatches(rawBody: Buffer, signedSha256: string): boolean {
  return signedSha256 !== "" && createHash("sha256").update(rawBody).digest("base64") === signedSha256;
}
