import { describe, expect, it } from "vitest";
import { ConversationDriver, type DrivenVoice, type SayOutcome, type SayReports } from "./conversation-driver.js";
import type { ConversationItem, Delivery } from "./conversation-queue.js";

/** A conversation that records what it is asked, and says each line until the test ends it or it is cut. */
class FakeVoice implements DrivenVoice {
  readonly calls: string[] = [];
  /** Something of the framework's own (a greeting, an answer) is being said. */
  busy = false;
  private saying: ((interrupted: boolean) => void) | undefined;
  private quiet: (() => void)[] = [];
  reply: (() => Promise<void>) | undefined = async () => {
    this.calls.push("reply");
  };

  say(text: string): Promise<{ interrupted: boolean }> {
    this.calls.push(`say ${text}`);
    return new Promise((resolve) => {
      this.saying = (interrupted) => resolve({ interrupted });
    });
  }
  /** The line being said ends. */
  finish(): void {
    this.saying?.(false);
    this.saying = undefined;
  }
  interrupt(): void {
    this.calls.push("interrupt");
    this.saying?.(true);
    this.saying = undefined;
    this.setBusy(false);
  }
  async addNote(text: string): Promise<void> {
    this.calls.push(`note ${text}`);
  }
  idle(): Promise<void> {
    return this.busy ? new Promise((resolve) => this.quiet.push(resolve)) : Promise.resolve();
  }
  setBusy(busy: boolean): void {
    this.busy = busy;
    if (!busy) for (const resolve of this.quiet.splice(0)) resolve();
  }
}

/** The service's side: accepts every say but `refused`'s, answering when the test says (`hold`). */
class FakeReports implements SayReports {
  readonly sent: string[] = [];
  readonly refused = new Set<string>();
  hold: Promise<void> = Promise.resolve();
  async sayStarted(id: string): Promise<boolean> {
    this.sent.push(`started ${id}`);
    await this.hold;
    return !this.refused.has(id);
  }
  sayEnded(id: string, interrupted: boolean): void {
    this.sent.push(`ended ${id}${interrupted ? " interrupted" : ""}`);
  }
}

const say = (seq: number, text: string, interrupt = false): ConversationItem => ({ seq, type: "say", id: `utt_${seq}`, text, interrupt });
const note = (seq: number, text: string, respond = false): ConversationItem => ({ seq, type: "context", id: `ctx_${seq}`, text, respond });
const delivery = (items: ConversationItem[], interrupt: { seq: number; now: boolean } = { seq: 0, now: false }): Delivery => ({
  items,
  interruptSeq: interrupt.seq,
  interrupted: interrupt.now,
  turnEvents: false,
});
const settled = () => new Promise((resolve) => setTimeout(resolve, 5));

function driver() {
  const voice = new FakeVoice();
  const reports = new FakeReports();
  const outcomes: SayOutcome[] = [];
  const logs: string[] = [];
  const d = new ConversationDriver(voice, reports, { log: (_, message) => logs.push(message), said: (o) => outcomes.push(o) });
  return { d, voice, reports, outcomes, logs };
}

describe("ConversationDriver", () => {
  it("says nothing before the greeting started, then each say in order, once the last ended and all is quiet", async () => {
    const { d, voice, reports, outcomes } = driver();
    await d.deliver(delivery([say(1, "First."), say(2, "Second.")]));
    await settled();
    expect(voice.calls).toEqual([]);
    voice.busy = true;
    d.open();
    await settled();
    expect(voice.calls).toEqual([]);
    voice.setBusy(false);
    await settled();
    expect(voice.calls).toEqual(["say First."]);
    expect(d.sayingNow).toBe(true);
    voice.finish();
    await settled();
    expect(voice.calls).toEqual(["say First.", "say Second."]);
    voice.finish();
    await settled();
    expect(reports.sent).toEqual(["started utt_1", "ended utt_1", "started utt_2", "ended utt_2"]);
    expect(outcomes).toEqual(["spoken", "spoken"]);
    expect(d.sayingNow).toBe(false);
  });

  it("does not say what the service refused, and goes on with the next", async () => {
    const { d, voice, reports, outcomes } = driver();
    reports.refused.add("utt_1");
    d.open();
    await d.deliver(delivery([say(1, "Expired."), say(2, "Fresh.")]));
    await settled();
    expect(voice.calls).toEqual(["say Fresh."]);
    expect(reports.sent).toEqual(["started utt_1", "started utt_2"]);
    expect(outcomes).toEqual(["refused"]);
  });

  it("cuts what is said for a say with interrupt, drops what is held before it, and says it next", async () => {
    const { d, voice, reports } = driver();
    d.open();
    await d.deliver(delivery([say(1, "One."), say(2, "Two."), say(3, "Three.")]));
    await settled();
    await d.deliver(delivery([say(4, "Now!", true), say(5, "After.")]));
    await settled();
    expect(voice.calls).toEqual(["say One.", "interrupt", "say Now!"]);
    voice.finish();
    await settled();
    expect(voice.calls.at(-1)).toBe("say After.");
    expect(reports.sent.slice(0, 4)).toEqual(["started utt_1", "ended utt_1 interrupted", "started utt_4", "ended utt_4"]);
  });

  it("interrupts when the queue's interruption grows, but not for the one the first pull found", async () => {
    const { d, voice, reports } = driver();
    d.open();
    voice.busy = true;
    // The first pull: an interruption from before the job; what it dropped is not said.
    await d.deliver(delivery([say(2, "Dropped before."), say(4, "Kept.")], { seq: 3, now: false }));
    await settled();
    expect(voice.calls).toEqual([]);
    await d.deliver(delivery([say(5, "Also held.")]));
    await d.deliver(delivery([say(7, "After the stop.")], { seq: 6, now: true }));
    await settled();
    expect(voice.calls).toEqual(["interrupt", "say After the stop."]);
    // What the interruption dropped is not even asked for.
    expect(reports.sent).toEqual(["started utt_7"]);
  });

  it("does not say a say whose start was being asked for when an interruption came; its end says it was cut", async () => {
    const { d, voice, reports, outcomes } = driver();
    let answer: () => void = () => undefined;
    reports.hold = new Promise((resolve) => {
      answer = resolve;
    });
    d.open();
    await d.deliver(delivery([say(1, "Too slow.")]));
    await settled();
    await d.deliver(delivery([], { seq: 2, now: true }));
    answer();
    await settled();
    expect(voice.calls).toEqual(["interrupt"]);
    expect(reports.sent).toEqual(["started utt_1", "ended utt_1 interrupted"]);
    expect(outcomes).toEqual(["interrupted"]);
  });

  it("adds notes at once, and answers one that asks for it in its turn, after the greeting and earlier says", async () => {
    const { d, voice } = driver();
    await d.deliver(delivery([note(1, "The caller is Ines."), say(2, "Hello Ines."), note(3, "Her order shipped.", true)]));
    await settled();
    expect(voice.calls).toEqual(["note The caller is Ines.", "note Her order shipped."]);
    d.open();
    await settled();
    voice.finish();
    await settled();
    expect(voice.calls.slice(2)).toEqual(["say Hello Ines.", "reply"]);
  });

  it("without an LLM, keeps a note but cannot answer it, and says so", async () => {
    const { d, voice, logs } = driver();
    voice.reply = undefined;
    d.open();
    await d.deliver(delivery([note(1, "Answer this.", true)]));
    await settled();
    expect(voice.calls).toEqual(["note Answer this."]);
    expect(logs).toContain("a note asks for an answer, but there is no LLM to give one");
  });

  it("says nothing more once stopped", async () => {
    const { d, voice } = driver();
    voice.busy = true;
    d.open();
    await d.deliver(delivery([say(1, "Never.")]));
    d.stop();
    voice.setBusy(false);
    await settled();
    expect(voice.calls).toEqual([]);
  });
});
