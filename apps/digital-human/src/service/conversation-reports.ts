/**
 * What the digital human tells the service about the conversation (the contract's reportConversation):
 * the start and end of each utterance of `say` (always: the service asks the first to decide whether it
 * may be said), and, only while the latest pull said `turn_events: true`, each turn of the participant
 * and each line of its own (a greeting, an answer, an apology: one utterance per line as captioned,
 * which is also one transcript segment).
 *
 * Posts go one at a time, in order, with what queued meanwhile batched (at most 20 a post, the contract's
 * bound); nothing waits for them but the say whose start they carry. A post that cannot be delivered
 * after a few attempts is dropped and said; its say starts count as refused, since a say may be spoken
 * only once the service said so. 401 or 404 means the session is not this job's to report on any more.
 */

import type { components } from "@dhs/contract";
import { toShownText } from "@dhs/contract/shown-text";
import type { Passage } from "../conversation/turn-knowledge.js";
import type { ServiceClient } from "./service-client.js";

type Report = components["schemas"]["ConversationReport"];

const MAX_PER_POST = 20;
const MAX_TEXT = 2000;
const ATTEMPTS = 4;

export interface ConversationReportsOptions {
  api: ServiceClient;
  /** The job's identity in the room. */
  identity(): string;
  /** Begins the ids of this job's own lines and of the participant's turns (its LiveKit job id). */
  idPrefix: string;
  onError(message: string): void;
  /** The first retry's wait; each next one doubles it. */
  retryBaseMs?: number;
}

interface Queued {
  report: Report;
  /** A say's start: told whether the service accepted it. */
  settle?: (accepted: boolean) => void;
}

export class ConversationReports {
  /** Whether per-turn events are wanted: each pull says so. */
  turnEvents = false;
  private readonly queue: Queued[] = [];
  private sending: Promise<void> = Promise.resolve();
  private readonly prefix: string;
  private turns = 0;
  private lines = 0;
  /** The id of the own line reported as started and not yet as ended. */
  private openLine: string | undefined;
  private refused = false;

  constructor(private readonly options: ConversationReportsOptions) {
    // The contract's id pattern; LiveKit's job ids already fit it.
    this.prefix = options.idPrefix.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 40);
  }

  /** An utterance of `say` is about to start: resolves with whether it may be said. */
  sayStarted(id: string, text: string): Promise<boolean> {
    return new Promise((settle) =>
      this.enqueue({ type: "utterance_started", id, say: true, text: toShownText(text, MAX_TEXT), started_at: now() }, settle),
    );
  }

  sayEnded(id: string, interrupted: boolean): void {
    this.enqueue({ type: "utterance_ended", id, say: true, ended_at: now(), interrupted });
  }

  participantTurn(text: string, startedAt: Date, endedAt: Date, passages: readonly Passage[] = []): void {
    const words = toShownText(text, MAX_TEXT);
    if (!this.turnEvents || words === "") return;
    const id = `turn-${this.prefix}-${++this.turns}`;
    const ended = new Date(Math.max(endedAt.getTime(), startedAt.getTime()));
    this.enqueue({
      type: "participant_turn",
      id,
      say: false,
      text: words,
      started_at: startedAt.toISOString(),
      ended_at: ended.toISOString(),
      knowledge: passages.map(({ document_id, score }) => ({ document_id, score })),
    });
  }

  /** A line of its own starts being heard. */
  lineStarted(text: string): void {
    // The Speaker ends each line before the next starts; should one not be, its end is not left untold.
    this.lineEnded(true);
    const words = toShownText(text, MAX_TEXT);
    if (!this.turnEvents || words === "") return;
    this.openLine = `dh-${this.prefix}-${++this.lines}`;
    this.enqueue({ type: "utterance_started", id: this.openLine, say: false, text: words, started_at: now() });
  }

  /** The line last started ended or was cut; its end is reported even if turn events stopped meanwhile. */
  lineEnded(interrupted: boolean): void {
    const id = this.openLine;
    this.openLine = undefined;
    if (id !== undefined) this.enqueue({ type: "utterance_ended", id, say: false, ended_at: now(), interrupted });
  }

  /** Resolves once everything queued so far was posted or given up. */
  flush(): Promise<void> {
    return this.sending;
  }

  private enqueue(report: Report, settle?: (accepted: boolean) => void): void {
    if (this.refused) {
      settle?.(false);
      return;
    }
    this.queue.push(settle ? { report, settle } : { report });
    this.sending = this.sending.then(() => this.sendQueued());
  }

  private async sendQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_PER_POST);
      const accepted = await this.post(batch.map((queued) => queued.report));
      for (const [i, queued] of batch.entries()) queued.settle?.(accepted?.[i] ?? false);
    }
  }

  /** Each report's `accepted`, or undefined when the post was not delivered. */
  private async post(reports: Report[]): Promise<boolean[] | undefined> {
    if (this.refused) return undefined;
    const body: components["schemas"]["ConversationReports"] = { participant_identity: this.options.identity(), reports };
    const outcome = await this.options.api.report(body, { attempts: ATTEMPTS, baseMs: this.options.retryBaseMs ?? 300 });
    if (outcome.ok) return outcome.data.results.map((result) => result.accepted);
    if (outcome.status === 401 || outcome.status === 404 || outcome.status === 409) this.refused = true;
    this.options.onError(`${reports.length} conversation reports not delivered: ${outcome.problem}`);
    return undefined;
  }
}

const now = () => new Date().toISOString();
