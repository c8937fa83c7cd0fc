import { describe, expect, it } from "vitest";
import { EMPTY_CONVERSATION, nextDueMs } from "../conversation/conversation.js";
import {
  lapsedLeases,
  networkFailure,
  outcomeOfAnswer,
  RUNNER_LOST,
  type StoredToolCall,
  settleLostCalls,
  toolCallField,
} from "./tool-call.js";

const running = (id: string, leaseUntilMs: number): StoredToolCall => ({
  id,
  name: "order_status",
  type: "webhook",
  arguments: { order_id: "A-1" },
  fingerprint: "f",
  status: "running",
  result: null,
  error: null,
  startedAtMs: 1_000,
  durationMs: null,
  leaseUntilMs,
});

describe("what an endpoint's answer means for the LLM", () => {
  it.each([
    [200, '{"result":{"status":"shipped"}}', { status: "succeeded", result: { status: "shipped" } }],
    [200, '{"result":null}', { status: "succeeded", result: null }],
    [200, '{"error":"No order A-9."}', { status: "failed", error: "No order A-9." }],
    [200, '{"error":""}', { status: "failed", error: 'The tool\'s endpoint answered JSON without "result" or "error".' }],
    [200, "[1]", { status: "failed", error: 'The tool\'s endpoint answered JSON that is not an object with "result" or "error".' }],
    [200, "ok", { status: "failed", error: "The tool's endpoint answered something that is not JSON." }],
    [201, '{"result":1}', { status: "failed", error: "The tool's endpoint answered HTTP 201, not 200." }],
    [200, null, { status: "failed", error: "The tool's endpoint answered more than 16384 bytes." }],
    [
      200,
      `{"result":${"[".repeat(5000)}${"]".repeat(5000)}}`,
      { status: "failed", error: "The tool's endpoint answered JSON nested more than 32 levels deep." },
    ],
    [200, '{"result":"a\\u0000b"}', { status: "succeeded", result: "a\uFFFDb" }],
    [200, '{"result":{"k\\ud800":"\\udc00"}}', { status: "succeeded", result: { "k\uFFFD": "\uFFFD" } }],
    [200, '{"error":"sorry \\udc00\\u0000"}', { status: "failed", error: "sorry \uFFFD\uFFFD" }],
  ] as const)("HTTP %s with %s", (status, body, outcome) => {
    expect(outcomeOfAnswer(status, body, 12)).toEqual({ ...outcome, durationMs: 12 });
  });

  it("keeps an error at 2 000 characters without cutting a character in half", () => {
    const said = outcomeOfAnswer(200, JSON.stringify({ error: `${"a".repeat(1999)}😀` }), 1);
    expect(said.status === "failed" && said.error).toBe(`${"a".repeat(1999)}\uFFFD`);
  });

  it("names a network failure, and a timeout as timed_out", () => {
    expect(networkFailure("timeout", 1500, 1500)).toEqual({
      status: "timed_out",
      error: "The tool did not answer within 1500 ms.",
      durationMs: 1500,
    });
    expect(networkFailure("dns_failed", 1500, 3)).toMatchObject({
      status: "failed",
      error: expect.stringContaining("could not be resolved"),
    });
  });
});

describe("a running call whose runner died", () => {
  it("is due on the conversation's timer at its lease's end, and settled failed with its event then", () => {
    const state = {
      ...EMPTY_CONVERSATION,
      toolCalls: ["c1", "c2"],
      toolLeases: [
        { id: "c1", untilMs: 5_000 },
        { id: "c2", untilMs: 9_000 },
      ],
    };
    expect(nextDueMs(state)).toBe(5_000);
    expect(lapsedLeases(state, 4_999)).toEqual([]);
    expect(lapsedLeases(state, 5_000)).toEqual(["c1"]);
    const settled = settleLostCalls("s1", state, (id) => (id === "c1" ? JSON.stringify(running("c1", 5_000)) : null), 5_000);
    expect(settled.state.toolLeases).toEqual([{ id: "c2", untilMs: 9_000 }]);
    expect(JSON.parse(settled.marks[toolCallField("c1")] ?? "{}")).toMatchObject({
      status: "failed",
      error: RUNNER_LOST,
      durationMs: 4_000,
    });
    expect(settled.events).toEqual([
      { type: "session.tool_called", data: { session_id: "s1", tool_call: expect.objectContaining({ id: "c1", status: "failed" }) } },
    ]);
    expect(nextDueMs(settled.state)).toBe(9_000);
  });

  it("is left as its runner recorded it when it ended meanwhile, and only its lease goes", () => {
    const done = { ...running("c1", 5_000), status: "succeeded" as const, result: "ok", leaseUntilMs: null, durationMs: 20 };
    const state = { ...EMPTY_CONVERSATION, toolLeases: [{ id: "c1", untilMs: 5_000 }] };
    const settled = settleLostCalls("s1", state, () => JSON.stringify(done), 6_000);
    expect(settled).toEqual({ state: { ...state, toolLeases: [] }, marks: {}, events: [], settled: [] });
  });
});
