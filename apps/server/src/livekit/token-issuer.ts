/**
 * Participant tokens (contract guide, "Participant tokens"): a LiveKit AccessToken for the session's participant identity,
 * allowed to join only the session's room, to publish and to subscribe, valid for the configured TTL.
 */
import { AccessToken } from "livekit-server-sdk";
import type { TokenIssuer, TokenRequest } from "../domain/sessions/ports.js";

export class LiveKitTokenIssuer implements TokenIssuer {
  constructor(
    private readonly apiKey: string,
    private readonly apiSecret: string,
  ) {}

  mint({ identity, roomName, ttlSeconds }: TokenRequest): Promise<string> {
    const token = new AccessToken(this.apiKey, this.apiSecret, { identity, ttl: ttlSeconds });
    token.addGrant({ room: roomName, roomJoin: true, canPublish: true, canSubscribe: true, canPublishData: true });
    return token.toJwt();
  }
}
