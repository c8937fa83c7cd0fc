import { describe, expect, it } from "vitest";
import { type ConversationLimits, EMPTY_CONVERSATION, nextDueMs, RENUDGE_MS, type StoredSay } from "./conversation.js";
import { pull } from "./conversation-delivery.js";
import { type ConversationEvent, expire, interrupt, queueItem } from "./conversation-machine.js";

const statusOf = (event: ConversationEvent) => ("status" in event.data ? event.data.status : undefined);
const LIMITS: ConversationLimits = { maxQueued: 2, charactersPerMinute: 20, sayTtlMs: 60_000, maxNotes: 3 };
const say = (id: string, text = "hi", interruptIt = false) => ({ kind: "say" as const, id, text, interrupt: interruptIt });

// Times as a clock gives them (a minute's window starts with the first characters of the session).
const T = 1_795_000_000_000;

function queued(state = EMPTY_CONVERSATION, item = say("utt_a"), nowMs = T + 1000) {
  const outcome = queueItem("s", state, item, nowMs, LIMITS);
  if (outcome.kind !== "queued") throw new Error(outcome.kind);
  return outcome;
}

describe("the conversation's rules", () => {
  it("numbers items in order, bounds the queue, and the characters of a minute (Retry-After until the minute ends)", () => {
    const one = queued();
    const two = queued(one.state, say("utt_b"));
    expect(two.state.live.map((item) => [item.id, item.seq])).toEqual([
      ["utt_a", 1],
      ["utt_b", 2],
    ]);
    expect(queueItem("s", two.state, say("utt_c"), T + 1000, LIMITS)).toEqual({ kind: "queue_full", limit: 2 });
    expect(queueItem("s", one.state, say("utt_c", "x".repeat(19)), T + 31_000, LIMITS)).toEqual({
      kind: "rate_limited",
      retryAfterS: 30,
      limit: 20,
    });
    // A new minute, a new allowance.
    expect(queueItem("s", one.state, say("utt_c", "x".repeat(19)), T + 61_000, LIMITS).kind).toBe("queued");
  });

  it("bounds the notes of a session's whole life apart from the queue, and says count for the queue only", () => {
    const note = (id: string) => ({ kind: "context" as const, id, text: "n", respond: false });
    const limits = { ...LIMITS, maxQueued: 5 };
    const outcome = (state: typeof EMPTY_CONVERSATION, item: Parameters<typeof queueItem>[2]) =>
      queueItem("s", state, item, T + 1000, limits);
    const one = outcome(EMPTY_CONVERSATION, note("ctx_a"));
    if (one.kind !== "queued") throw new Error(one.kind);
    // Two notes delivered (kept for a job dispatched again) and one waiting: the third of LIMITS' three.
    const given = {
      ...one.state,
      delivered: [
        { id: "ctx_x", seq: 90 },
        { id: "ctx_y", seq: 91 },
      ],
    };
    expect(outcome(given, note("ctx_b"))).toEqual({ kind: "notes_limit", limit: 3 });
    // Says queued beside them are not notes: a session with one note given takes says up to the queue's bound.
    const withSays = [say("utt_a"), say("utt_b"), say("utt_c")].reduce((state, item) => {
      const next = outcome(state, item);
      if (next.kind !== "queued") throw new Error(next.kind);
      return next.state;
    }, one.state);
    const five = outcome(withSays, note("ctx_b"));
    if (five.kind !== "queued") throw new Error(five.kind);
    // Two notes of three: the queue's five refuse the next, and that refusal is one to wait out.
    expect(outcome(five.state, note("ctx_c"))).toEqual({ kind: "queue_full", limit: 5 });
  });

  it("a say that interrupts drops the says queued before it, each with its event", () => {
    const before = queued();
    const cut = queued(before.state, say("utt_b", "now", true));
    expect(cut.state.live.map((item) => item.id)).toEqual(["utt_b"]);
    expect(cut.items.map((item) => [item.id, (item as StoredSay).status])).toEqual([
      ["utt_b", "queued"],
      ["utt_a", "interrupted"],
    ]);
    expect(cut.events.map((event) => [event.type, statusOf(event)])).toEqual([["session.utterance_ended", "interrupted"]]);
  });

  it("interrupt ends every say, takes a seq of its own, and names what it stopped", () => {
    const change = interrupt("s", queued().state, T + 2000);
    expect(change.stopped).toEqual(["utt_a"]);
    expect(change.state).toMatchObject({ seq: 2, interruptSeq: 2, live: [] });
  });

  it("a pull marks what it hands over delivered; the next job ends what the last was saying", () => {
    const first = pull("s", queued().state, 0, "agent-1", T + 1500);
    expect(first.deliver.map((item) => item.id)).toEqual(["utt_a"]);
    expect((first.state.live[0] as StoredSay).deliveredAtMs).toBe(T + 1500);
    const speaking = { ...first.state, live: [{ ...(first.state.live[0] as StoredSay), status: "speaking" as const, speaker: "agent-1" }] };
    const next = pull("s", speaking, 0, "agent-2", T + 1600);
    expect(next.deliver).toEqual([]);
    expect(next.events.map((event) => statusOf(event))).toEqual(["interrupted"]);
    expect(pull("s", first.state, 1, "agent-1", T + 1700).changed).toBe(false);
  });

  it("the timer expires queued says at their bound, and renudges a job that took nothing", () => {
    const { state } = queued();
    expect(nextDueMs(state)).toBe(T + 61_000);
    expect(expire("s", state, T + 60_999, false).items).toEqual([]);
    expect(expire("s", state, T + 61_000, false).events.map((event) => statusOf(event))).toEqual(["expired"]);
    const known = { ...state, agent: "agent-1", nudgedAtMs: T + 1000 };
    expect(nextDueMs(known)).toBe(T + 1000 + RENUDGE_MS);
  });
});
