/**
 * Hands the session's transcript to the service (its contract's appendTranscriptSegments): each segment
 * once it is final, then `final: true` when the job ends, with the contract's `digitalHumanToken`
 * (service-client.ts).
 *
 * Each segment's text is cleaned by the service's rule for shown text (toShownText: bidirectional and
 * control characters out, cut at a grapheme's end). Posts go one at a time, in order, with what queued
 * meanwhile batched (at most 50 a post, the contract's bound). A post that failed on the network or with
 * 429/5xx is sent again as it was (segment ids make a retry harmless), backing off, up to a few times. A
 * post refused for some of its segments (422 naming them) is sent again without those, so one bad
 * segment never costs the others; one refused whole (409 closed, 401, 404) stops the posts, said once. A
 * transcript that cannot be delivered costs the transcript, never the session.
 */

import type { components } from "@dhs/contract";
import { toShownText } from "@dhs/contract/shown-text";
import { type Outcome, type ServiceAccess, ServiceClient } from "./service-client.js";

export interface TranscriptSegmentInput {
  speaker: "participant" | "digital_human";
  text: string;
  startedAt: Date;
  endedAt: Date;
}

export interface TranscriptPosterOptions extends ServiceAccess {
  /**
   * Begins every segment id of this job (its LiveKit job id): a digital human dispatched again to the
   * same session numbers its segments from 1 too, and must not have them taken for the first one's.
   */
  idPrefix: string;
  onError?: (message: string) => void;
  /** The first retry's wait; each next one doubles it. */
  retryBaseMs?: number;
}

type Segment = components["schemas"]["TranscriptSegmentsAppend"]["segments"][number];

const MAX_PER_POST = 50;
const MAX_TEXT = 2000;
const ATTEMPTS = 5;

export class TranscriptPoster {
  private readonly queue: Segment[] = [];
  private readonly counters = { digital_human: 0, participant: 0 };
  private sending: Promise<void> = Promise.resolve();
  private readonly api: ServiceClient;
  private refused = false;
  private finished = false;
  private finalSaid = false;

  constructor(private readonly options: TranscriptPosterOptions) {
    this.api = new ServiceClient(options, () => `dh-transcript-${options.sessionId}`);
  }

  /** Queues a final segment and sends it (with whatever else is queued) once the post before is done. */
  add(segment: TranscriptSegmentInput): void {
    const text = toShownText(segment.text, MAX_TEXT);
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

  private async post(body: components["schemas"]["TranscriptSegmentsAppend"]): Promise<void> {
    if (this.refused) return;
    const outcome = await this.api.appendSegments(body, { attempts: ATTEMPTS, baseMs: this.options.retryBaseMs ?? 500 });
    if (outcome.ok) return;
    // Closed (deleted, or too late), or not this session's: later posts would be refused too.
    if (outcome.status === 409 || outcome.status === 401 || outcome.status === 404) this.refused = true;
    const refused = refusedSegments(outcome, body.segments.length);
    if (refused.size > 0 && refused.size < body.segments.length) {
      this.options.onError?.(`${refused.size} transcript segment(s) refused and left out: ${outcome.problem.slice(0, 300)}`);
      await this.post({ segments: body.segments.filter((_, i) => !refused.has(i)), final: body.final });
      return;
    }
    this.options.onError?.(`transcript segments not delivered: ${outcome.problem.slice(0, 300)}`);
  }
}

/** The segments a 422 names (`segments.<i>.<field>`); none when the post was refused otherwise. */
function refusedSegments(outcome: Outcome<unknown>, count: number): Set<number> {
  if (outcome.ok || outcome.status !== 422 || !Array.isArray(outcome.error?.detail)) return new Set();
  const named = (outcome.error.detail as { path?: unknown }[]).map((problem) => /^segments\.(\d+)\./.exec(String(problem.path))?.[1]);
  return new Set(named.flatMap((i) => (i !== undefined && Number(i) < count ? [Number(i)] : [])));
}
