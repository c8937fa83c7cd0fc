/**
 * The digital human's credential for its session (contract: the `digitalHumanToken` scheme): a LiveKit
 * access token its worker signs with the deployment's LiveKit API key and secret, whose video grant says
 * `agent: true` and names the session's room. Verified by livekit-server-sdk's TokenVerifier (issuer,
 * signature, `exp` required); HS256 alone is taken, whatever else the key could verify. A participant's
 * token for the same room, which the customer's page holds, is not an agent's and is refused. So that a
 * leaked worker token is good for minutes, not until its transcript closes, a token may live at most
 * MAX_TOKEN_LIFE_S from now (the reference worker signs for 10 minutes), and only its canonical
 * encoding is taken (base64url without padding, as it was signed), never another spelling of it.
 */
import { TokenVerifier } from "livekit-server-sdk";
import { sessionIdOfRoom } from "../domain/sessions/session.js";

export class InvalidDigitalHumanTokenError extends Error {
  override readonly name = "InvalidDigitalHumanTokenError";
}

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

/** The longest a digital human's token may still be good for (s): an hour (contract: `digitalHumanToken`). */
export const MAX_TOKEN_LIFE_S = 3600;
/** Clocks of the worker and the service may disagree by this much (s). */
const CLOCK_SKEW_S = 60;

export class DigitalHumanTokens {
  private readonly verifier: TokenVerifier;

  constructor(apiKey: string, apiSecret: string) {
    this.verifier = new TokenVerifier(apiKey, apiSecret);
  }

  /**
   * The session whose room the token names, and the identity it was signed for (its `sub`; empty when it
   * has none); InvalidDigitalHumanTokenError, saying why, otherwise.
   */
  async verify(authorization: string | undefined): Promise<{ sessionId: string; identity: string }> {
    const token = BEARER.exec(authorization ?? "")?.[1];
    if (token === undefined) throw new InvalidDigitalHumanTokenError("no token in the Authorization header");
    const parts = token.split(".");
    if (parts.length !== 3 || !parts.every(isCanonicalBase64url))
      throw new InvalidDigitalHumanTokenError("not a JWT in its canonical encoding");
    if (algorithmOf(token) !== "HS256") throw new InvalidDigitalHumanTokenError("not an HS256 JWT");
    let video: { agent?: unknown; room?: unknown } | undefined;
    let exp: unknown;
    let sub: unknown;
    try {
      ({ video, exp, sub } = await this.verifier.verify(token));
    } catch (error) {
      throw new InvalidDigitalHumanTokenError(error instanceof Error ? error.message : String(error));
    }
    if (typeof exp !== "number" || exp - Date.now() / 1000 > MAX_TOKEN_LIFE_S + CLOCK_SKEW_S) {
      throw new InvalidDigitalHumanTokenError(`the token lives longer than ${MAX_TOKEN_LIFE_S} s`);
    }
    if (video?.agent !== true) throw new InvalidDigitalHumanTokenError("the token's video grant is not an agent's");
    const sessionId = sessionIdOfRoom(typeof video.room === "string" ? video.room : undefined);
    if (sessionId === undefined) throw new InvalidDigitalHumanTokenError("the token names no session's room");
    return { sessionId, identity: typeof sub === "string" ? sub : "" };
  }
}

/** Unpadded base64url that decodes to bytes which encode back to the same text. */
function isCanonicalBase64url(part: string): boolean {
  return /^[A-Za-z0-9_-]+$/.test(part) && Buffer.from(part, "base64url").toString("base64url") === part;
}

function algorithmOf(token: string): unknown {
  try {
    const [header = ""] = token.split(".");
    return (JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as { alg?: unknown }).alg;
  } catch {
    return undefined;
  }
}
