/**
 * Does what the session's backend queued (conversation-queue.ts hands it on): a note goes into what the
 * LLM knows at once; a say is held in a queue of the job's own and spoken verbatim, one at a time and in
 * `seq` order, once the greeting has started and the digital human and the participant are both quiet,
 * so the framework neither queues it behind an answer (where the participant's next turn would drop it)
 * nor starts it over their words; a note to be answered (`respond`) waits its turn the same way.
 *
 * A say is spoken only once the service accepted its start (conversation-reports.ts), and its end is
 * reported, cut or not. An interruption (a say with `interrupt: true`, or the queue's `interrupt_seq`
 * growing) stops what is being said now, whoever's, and drops what is held with a smaller `seq`; a say
 * whose start was being asked for when it came is not spoken, and reported ended, cut.
 */
import type { ConversationItem, Delivery } from "./conversation-queue.js";

/** The conversation as the driver needs it (session-voice.ts: LiveKit's AgentSession). */
export interface DrivenVoice {
  /** Says `text` in the digital human's voice; resolves when it ended or was cut. */
  say(text: string): Promise<{ interrupted: boolean }>;
  /** Cuts what is being said now and what the framework queued. */
  interrupt(): void;
  /** Adds a note from the business to what the LLM knows. */
  addNote(text: string): Promise<void>;
  /** Has the LLM answer the conversation now; resolves when the answer ended. Undefined without an LLM. */
  reply: (() => Promise<void>) | undefined;
  /** Resolves when nothing is being said or about to be, and the participant is not speaking. */
  idle(): Promise<void>;
}

/** The service's side of a say (conversation-reports.ts). */
export interface SayReports {
  sayStarted(id: string, text: string): Promise<boolean>;
  sayEnded(id: string, interrupted: boolean): void;
}

export type SayOutcome = "spoken" | "interrupted" | "refused";

type Held = { seq: number; kind: "say"; id: string; text: string } | { seq: number; kind: "reply" };

export class ConversationDriver {
  /** An utterance of `say` is being spoken: its lines are not the digital human's own. */
  sayingNow = false;
  private held: Held[] = [];
  /** Items with a smaller `seq` were interrupted. */
  private floor = 0;
  private opened: () => void = () => undefined;
  private readonly opening = new Promise<void>((resolve) => {
    this.opened = resolve;
  });
  private wake: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly voice: DrivenVoice,
    private readonly reports: SayReports,
    private readonly events: {
      log(level: "info" | "warn", message: string, fields?: Record<string, unknown>): void;
      said?: ((outcome: SayOutcome) => void) | undefined;
    },
  ) {
    void this.run();
  }

  /** The greeting has started (or there is none): what is held may follow it. */
  open(): void {
    this.opened();
  }

  async deliver(delivery: Delivery): Promise<void> {
    if (this.stopped) return;
    if (delivery.interrupted) this.cut(delivery.interruptSeq);
    else this.floor = Math.max(this.floor, delivery.interruptSeq);
    for (const item of delivery.items) await this.take(item);
    this.wake?.();
  }

  /** Nothing more is said; what is held is dropped. A say being spoken ends as the session closes. */
  stop(): void {
    this.stopped = true;
    this.held = [];
    this.opened();
    this.wake?.();
  }

  private async take(item: ConversationItem): Promise<void> {
    if (item.type === "context") {
      // A note stays known whatever is interrupted; only its answer waits, and can be dropped.
      const added = await this.voice.addNote(item.text).then(
        () => true,
        (error: unknown) => this.events.log("warn", "could not add a note from the business", { id: item.id, error: String(error) }),
      );
      if (added) this.events.log("info", "note from the business", { id: item.id, respond: item.respond === true });
      if (!added || item.respond !== true) return;
      if (this.voice.reply === undefined)
        this.events.log("warn", "a note asks for an answer, but there is no LLM to give one", { id: item.id });
      else if (item.seq >= this.floor) this.held.push({ seq: item.seq, kind: "reply" });
      return;
    }
    if (item.interrupt === true) this.cut(item.seq);
    if (item.seq < this.floor) return this.events.log("info", "a say came interrupted: not said", { id: item.id });
    this.held.push({ seq: item.seq, kind: "say", id: item.id, text: item.text });
  }

  private cut(seq: number): void {
    this.floor = Math.max(this.floor, seq);
    this.held = this.held.filter((held) => held.seq >= seq);
    this.voice.interrupt();
  }

  private async run(): Promise<void> {
    await this.opening;
    while (!this.stopped) {
      if (this.held.length === 0) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
        continue;
      }
      try {
        await this.voice.idle();
        // Taken only now: an interruption while waiting may have dropped it.
        const next = this.held.shift();
        if (next?.kind === "say") await this.speak(next);
        else if (next?.kind === "reply") await this.voice.reply?.();
      } catch (error) {
        // The session is closing; the job stops the driver next.
        this.events.log("warn", "the conversation cannot take what the backend queued", { error: String(error) });
        return;
      }
    }
  }

  private async speak(say: Extract<Held, { kind: "say" }>): Promise<void> {
    if (!(await this.reports.sayStarted(say.id, say.text))) {
      this.events.log("info", "a say was not accepted by the service: not said", { id: say.id });
      return this.events.said?.("refused");
    }
    if (say.seq < this.floor || this.stopped) {
      this.reports.sayEnded(say.id, true);
      return this.events.said?.("interrupted");
    }
    this.events.log("info", "saying what the backend asked", { id: say.id });
    this.sayingNow = true;
    let interrupted = true;
    try {
      ({ interrupted } = await this.voice.say(say.text));
    } finally {
      this.sayingNow = false;
      this.reports.sayEnded(say.id, interrupted);
      this.events.said?.(interrupted ? "interrupted" : "spoken");
    }
  }
}
