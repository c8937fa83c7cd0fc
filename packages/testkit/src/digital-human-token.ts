/**
 * A digital human's token (the contract's `digitalHumanToken`) as its worker mints it: a LiveKit access
 * token signed with the deployment's key and secret, an agent's grant for the session's room, for the
 * participant identity its pulls and reports name. One helper for every test that calls the digital human
 * workers' operations; the options make the tokens the service must refuse.
 */
import { AccessToken } from "livekit-server-sdk";
import { LIVEKIT } from "./fixtures.js";

export interface DigitalHumanTokenOptions {
  /** The participant identity it is signed for (its `sub`): what the job's pulls and reports name. */
  identity?: string;
  /** false: a participant's grant, which the service refuses. */
  agent?: boolean;
  apiKey?: string;
  secret?: string;
  /** Seconds, or a duration string ("10m"); negative: already expired. */
  ttl?: number | string;
}

export function digitalHumanToken(roomName: string, options: DigitalHumanTokenOptions = {}): Promise<string> {
  const token = new AccessToken(options.apiKey ?? LIVEKIT.apiKey, options.secret ?? LIVEKIT.apiSecret, {
    identity: options.identity ?? "dh-worker",
    ttl: options.ttl ?? 300,
  });
  token.addGrant({ room: roomName, roomJoin: true, ...(options.agent === false ? {} : { agent: true }) });
  return token.toJwt();
}
