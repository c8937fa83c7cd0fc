/**
 * Hands the session's transcript to the service (its contract's appendTranscriptSegments): each segment
 * once it is final, then `final: true` when the job ends. Authenticated by a LiveKit access token this
 * worker signs with the LiveKit API key and secret it already holds, an agent's grant for the session's
 * room, as the contract's `digitalHumanToken` asks.
 *
 * Posts go one at a time, in order, with what queued meanwhile batched (at most 50 a post, the
 * contract's bound). A post that failed on the network or with 429/5xx is sent again as it was (segment
 * ids make a retry harmless), backing off, up to a few times; one the service refuses (409 closed, 4xx)
 * is dropped and said once. A transcript that cannot be delivered costs the transcript, never the session.
 */
import { AccessToken } from "livekit-server-sdk";

export interface TranscriptSegmentInput {
  speaker: "participant" | "digital_human";
  text: string;
  startedAt: Date;
  endedAt: Date;
}

export interface TranscriptPosterOptions {
  /** The service's base URL (DHS_API_URL), without a trailing slash. */
  serviceUrl: string;
  sessionId: string;
  roomName: string;
  /**
   * Begins every segment id of this job (its LiveKit job id): a digital human dispatched again to the
   * same session numbers its segments from 1 too, and must not have them taken for the first one's.
   */
  idPrefix: string;
  apiKey: string;
  apiSecret: string;
  fetch?: typeof fetch;
  onError?: (message: string) => void;
  /** The first retry's wait; each next one doubles it. */
  retryBaseMs?: number;
}

const MAX_PER_POST = 50;
const MAX_TEXT = 2000;
const ATTEMPTS = 5;
const TOKEN_TTL_S = 600;

export class TranscriptPoster {
  private readonly queue: Record<string, string>[] = [];
  private readonly counters = { digital_human: 0, participant: 0 };
  private sending: Promise<void> = Promise.resolve();
  private token: { jwt: string; expiresAtMs: number } | undefined;
  private refused = false;
  private finished = false;
  private finalSaid = false;

  constructor(private readonly options: TranscriptPosterOptions) {}

  /** Queues a final segment and sends it (with whatever else is queued) once the post before is done. */
  add(segment: TranscriptSegmentInput): void {
    const text = segment.text.trim().slice(0, MAX_TEXT);
    if (text === "" || this.finished) return;
    const n = ++this.counters[segment.speaker];
    const endedAt = new Date(Math.max(segment.endedAt.getTime(), segment.startedAt.getTime()));
    this.queue.push({
      id: `${this.options.idPrefix}-${segment.speaker === "digital_human" ? "dh" : "p"}-${n}`,
      speaker: segment.speaker,
      text,
      started_at: segment.startedAt.toISOString(),
      ended_at: endedAt.toISOString(),
    });
    this.kick(false);
  }

  /**
   * Sends what is left; with `final` (the session's room is gone: it ended), says so, which completes the
   * transcript at once. A job that stops while its session goes on (its worker shutting down, its
   * connection lost) leaves the transcript open for the digital human dispatched after it.
   */
  finish(final: boolean): Promise<void> {
    // Asked again with `final` (the job's shutdown ran before it saw the room go): said then.
    if (!this.finished || (final && !this.finalSaid)) {
      this.finished = true;
      this.finalSaid ||= final;
      this.kick(final);
    }
    return this.sending;
  }

  private kick(final: boolean): void {
    this.sending = this.sending.then(async () => {
      do {
        const batch = this.queue.splice(0, MAX_PER_POST);
        if (batch.length === 0 && !final) return;
        // Said once, with the last batch.
        await this.post({ segments: batch, final: final && this.queue.length === 0 });
      } while (this.queue.length > 0);
    });
  }

  private async post(body: { segments: Record<string, string>[]; final: boolean }): Promise<void> {
    if (this.refused) return;
    const { serviceUrl, sessionId, retryBaseMs = 500 } = this.options;
    const fetchImpl = this.options.fetch ?? fetch;
    let problem = "";
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, retryBaseMs * 2 ** (attempt - 1)));
      try {
        const res = await fetchImpl(`${serviceUrl}/v1/sessions/${sessionId}/transcript/segments`, {
          method: "POST",
          headers: { Authorization: `Bearer ${await this.bearer()}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        if (res.ok) return;
        problem = `${res.status} ${await res.text()}`;
        if (res.status !== 429 && res.status < 500) {
          // Closed (deleted, or too late), or refused as malformed: later posts would be too.
          if (res.status === 409 || res.status === 401 || res.status === 404) this.refused = true;
          break;
        }
      } catch (error) {
        problem = String(error);
      }
    }
    this.options.onError?.(`transcript segments not delivered: ${problem.slice(0, 300)}`);
  }

  private async bearer(): Promise<string> {
    const now = Date.now();
    if (this.token && this.token.expiresAtMs - now > 60_000) return this.token.jwt;
    const token = new AccessToken(this.options.apiKey, this.options.apiSecret, {
      identity: `dh-transcript-${this.options.sessionId}`,
      ttl: TOKEN_TTL_S,
    });
    token.addGrant({ room: this.options.roomName, agent: true });
    this.token = { jwt: await token.toJwt(), expiresAtMs: now + TOKEN_TTL_S * 1000 };
    return this.token.jwt;
  }
}
