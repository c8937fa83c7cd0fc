/**
 * Function calls in the shape OpenAI's Chat Completions API gives them, for the test server. A stream
 * carries each call as one chunk with its index, id and name, then its arguments' JSON in several pieces
 * under the same index: OpenAI's SDK and the agents' OpenAI plugin join the pieces by index and start a
 * new call on a new index, so a server that sent each call whole would hide a client that never joins.
 */
import { randomUUID } from "node:crypto";

/** A function call as OpenAI's messages carry it; `arguments` is JSON text. */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A call a test scripts. */
export interface ScriptedToolCall {
  /** `call_` and a random suffix by default, as OpenAI's ids look. */
  id?: string;
  name: string;
  /** JSON text, or an object sent as its JSON. */
  arguments: string | object;
}

export function toolCall(call: ScriptedToolCall): ChatToolCall {
  const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
  return {
    id: call.id ?? `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
    type: "function",
    function: { name: call.name, arguments: args },
  };
}

/** The stream's deltas for these calls: each call's id and name, then its arguments in `pieces` chunks. */
export function toolCallDeltas(calls: ChatToolCall[], pieces: number): Record<string, unknown>[] {
  return calls.flatMap(({ id, function: { name, arguments: args } }, index) => [
    { tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }] },
    ...split(args, pieces).map((piece) => ({ tool_calls: [{ index, function: { arguments: piece } }] })),
  ]);
}

/** Text in `count` pieces of about one length, split between characters, never inside one. */
function split(text: string, count: number): string[] {
  const chars = Array.from(text);
  const size = Math.max(1, Math.ceil(chars.length / Math.max(1, count)));
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(""));
  return pieces;
}
