/**
 * The digital human's credential for its session (contract: the `digitalHumanToken` scheme): a LiveKit
 * access token its worker signs with the deployment's LiveKit API key and secret, whose video grant says
 * `agent: true` and names the session's room. Verified by livekit-server-sdk's TokenVerifier (issuer,
 * signature, `exp` required); HS256 alone is taken, whatever else the key could verify. A participant's
 * token for the same room, which the customer's page holds, is not an agent's and is refused.
 */
import { TokenVerifier } from "livekit-server-sdk";
import { sessionIdOfRoom } from "../domain/sessions/session.js";

export class InvalidDigitalHumanTokenError extends Error {
  override readonly name = "InvalidDigitalHumanTokenError";
}

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

export class DigitalHumanTokens {
  private readonly verifier: TokenVerifier;

  constructor(apiKey: string, apiSecret: string) {
    this.verifier = new TokenVerifier(apiKey, apiSecret);
  }

  /** The session whose room the token names; InvalidDigitalHumanTokenError, saying why, otherwise. */
  async sessionOf(authorization: string | undefined): Promise<string> {
    const token = BEARER.exec(authorization ?? "")?.[1];
    if (token === undefined) throw new InvalidDigitalHumanTokenError("no token in the Authorization header");
    if (algorithmOf(token) !== "HS256") throw new InvalidDigitalHumanTokenError("not an HS256 JWT");
    let video: { agent?: unknown; room?: unknown } | undefined;
    try {
      ({ video } = await this.verifier.verify(token));
    } catch (error) {
      throw new InvalidDigitalHumanTokenError(error instanceof Error ? error.message : String(error));
    }
    if (video?.agent !== true) throw new InvalidDigitalHumanTokenError("the token's video grant is not an agent's");
    const sessionId = sessionIdOfRoom(typeof video.room === "string" ? video.room : undefined);
    if (sessionId === undefined) throw new InvalidDigitalHumanTokenError("the token names no session's room");
    return sessionId;
  }
}

function algorithmOf(token: string): unknown {
  try {
    const [header = ""] = token.split(".");
    return (JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as { alg?: unknown }).alg;
  } catch {
    return undefined;
  }
}
