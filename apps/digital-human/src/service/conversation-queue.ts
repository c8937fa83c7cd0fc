/**
 * Takes what the session's backend queued for the digital human (the contract's pullConversation): a
 * first pull as soon as the job has joined (`after: 0`), another whenever the service nudges the job (a
 * data message on `dhs.conversation`, sent to the identity the job gave in its last pull), and one every
 * 60 seconds (the service nudges again while the job has not taken what is queued, so this is the last
 * resort, and how a job learns that an endpoint now takes per-turn events). Pulls go one at a time: a nudge during a pull makes one more after
 * it, however many came.
 *
 * The cursor is the greatest `seq` seen, of an item or of an interruption, so nothing is handed on twice.
 * A pull that failed on the network or with 429/5xx is tried again shortly (service-client.ts), then at the
 * next nudge or tick; 401 or 404 (the session is gone, or not this job's) stops pulling.
 */
import type { components } from "@dhs/contract";
import type { ServiceClient } from "./service-client.js";

export type ConversationItem = components["schemas"]["ConversationItem"];

/** The topic of the service's nudges. */
export const CONVERSATION_TOPIC = "dhs.conversation";
const FALLBACK_MS = 60_000;
const ATTEMPTS = 4;

/** What one pull brought. */
export interface Delivery {
  /** Items not handed on before, in `seq` order. */
  items: ConversationItem[];
  /** The `seq` of the latest interruption (0: none). */
  interruptSeq: number;
  /** The interruption is new: it came after the job's first pull. */
  interrupted: boolean;
  turnEvents: boolean;
}

export interface ConversationQueueOptions {
  api: ServiceClient;
  /** The job's identity in the room, where the service sends its nudges. */
  identity(): string;
  /** Called once per pull that answered, before the next pull starts. */
  deliver(delivery: Delivery): Promise<void> | void;
  log(level: "info" | "warn", message: string, fields?: Record<string, unknown>): void;
  fallbackMs?: number;
  retryBaseMs?: number;
}

export class ConversationQueue {
  private cursor = 0;
  private interruptSeq = 0;
  private pulls = 0;
  private pulling = false;
  private again = false;
  private stopped = false;
  private failing = false;
  private tick: NodeJS.Timeout | undefined;

  constructor(private readonly options: ConversationQueueOptions) {}

  /** The first pull, and the fallback's ticks. */
  start(): void {
    this.nudge();
    this.tick = setInterval(() => this.nudge(), this.options.fallbackMs ?? FALLBACK_MS);
    this.tick.unref();
  }

  /** Pulls now, or once the pull in flight is done. */
  nudge(): void {
    if (this.stopped) return;
    if (this.pulling) {
      this.again = true;
      return;
    }
    this.pulling = true;
    void this.pullWhileAsked().finally(() => {
      this.pulling = false;
    });
  }

  /** No more pulls; what the one in flight brings is not handed on. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.tick);
  }

  private async pullWhileAsked(): Promise<void> {
    do {
      this.again = false;
      await this.pull();
    } while (this.again && !this.stopped);
  }

  private async pull(): Promise<void> {
    const after = this.cursor;
    const body: components["schemas"]["ConversationPullRequest"] = { after, participant_identity: this.options.identity() };
    const outcome = await this.options.api.pull(body, { attempts: ATTEMPTS, baseMs: this.options.retryBaseMs ?? 500 });
    if (this.stopped) return;
    if (!outcome.ok) {
      if (outcome.status === 401 || outcome.status === 404 || outcome.status === 409) {
        this.stopped = true;
        clearInterval(this.tick);
        this.options.log("warn", "the service refused the conversation's pull: the backend's queue is not taken any more", {
          problem: outcome.problem,
        });
      } else if (!this.failing) {
        this.failing = true;
        this.options.log("warn", "could not pull the conversation's queue: trying again at the next nudge or tick", {
          problem: outcome.problem,
        });
      }
      return;
    }
    if (this.failing) this.options.log("info", "the conversation's queue is pulled again");
    this.failing = false;
    const queue = outcome.data;
    const interruptSeq = queue.interrupt_seq;
    const items = queue.items.filter((item) => item.seq > after).sort((a, b) => a.seq - b.seq);
    const first = this.pulls++ === 0;
    const interrupted = !first && interruptSeq > this.interruptSeq;
    this.interruptSeq = Math.max(this.interruptSeq, interruptSeq);
    this.cursor = Math.max(after, interruptSeq, ...items.map((item) => item.seq));
    try {
      await this.options.deliver({ items, interruptSeq: this.interruptSeq, interrupted, turnEvents: queue.turn_events });
    } catch (error) {
      // What failed is lost with its item, as a say the job could not speak; the queue goes on.
      this.options.log("warn", "could not take the conversation's items", { error: String(error) });
    }
  }
}
