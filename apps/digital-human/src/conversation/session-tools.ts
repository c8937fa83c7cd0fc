/**
 * The persona's tools as the LLM's function tools (contract guide, "Tools"), on LiveKit's own `llm.tool`:
 *
 * - `webhook`: run by the service (runToolCall), keyed by the LLM's call id, so no repeat or re-dispatch
 *   reaches the customer twice; never aborted once asked, since the customer may act on it.
 * - `client`: an RPC to the participant's page (the method named as the tool), then recorded.
 * - `end_session`: the goodbye is heard first, then the call is recorded and the service ends the session.
 *
 * Past about a second the framework's filler says a short line unless the digital human is talking. A
 * failure reaches the LLM as the tool's error (`llm.ToolError`), so it says it could not, never silence.
 * The framework drops the result of a call whose reply the participant talked over; the result still
 * belongs in the conversation, so it is added to the agent's context when it comes (`onLateResult`).
 */
import type { Tool, ToolCall, ToolCallOutcome } from "@dhs/contract";
import { llm, type voice } from "@livekit/agents";

export const HOLD_LINE = "One moment, let me check.";
export const GOODBYE = "Goodbye, and thank you for talking with me.";
/** How long a call runs before the hold line (ms). */
export const HOLD_AFTER_MS = 1_000;

/** A call as the job asks the service to run or record it. */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolHost {
  /** runToolCall: a webhook call run by the service, or the job's outcome of another recorded. */
  run(call: ToolCallRequest, outcome?: ToolCallOutcome): Promise<ToolCall>;
  /** The participant's page, by LiveKit RPC; rejects with the RPC's error. */
  callPage(method: string, payload: string, timeoutMs: number): Promise<string>;
  /** A call's result that came after its reply was interrupted: for the conversation's context. */
  onLateResult(call: ToolCallRequest, output: string, isError: boolean): void;
}

/** The LLM's function tools; none without tools (and the job offers none without an LLM). */
export function sessionTools(tools: readonly Tool[], host: ToolHost): llm.ToolContextLike {
  return tools.map((tool) => {
    const parameters = (tool.type === "end_session" ? undefined : tool.parameters) as Record<string, unknown> | undefined;
    return llm.tool({
      name: tool.name,
      description: tool.description ?? "",
      ...(parameters === undefined ? {} : { parameters: parameters as never }),
      execute: async (args: unknown, { ctx, toolCallId, abortSignal }) => {
        const call = { id: toolCallId, name: tool.name, arguments: (args ?? {}) as Record<string, unknown> };
        if (tool.type === "end_session") return endSession(call, host, ctx);
        const running = tool.type === "webhook" ? host.run(call) : clientCall(call, tool.timeout_ms ?? 5_000, host);
        const recorded = await ctx.filler(HOLD_LINE, { delay: HOLD_AFTER_MS }, () => running);
        const { output, isError } = outputOf(recorded);
        if (abortSignal.aborted) host.onLateResult(call, output, isError);
        if (isError) throw new llm.ToolError(output);
        // The framework writes the tool's message as JSON itself.
        return recorded.result;
      },
    });
  });
}

/** What the LLM is given: the result as JSON, or the error as the tool's error. */
export function outputOf(call: Pick<ToolCall, "status" | "result" | "error">): { output: string; isError: boolean } {
  if (call.status === "succeeded")
    return { output: typeof call.result === "string" ? call.result : JSON.stringify(call.result), isError: false };
  if (call.status === "running") return { output: "The tool is still running; its result is not known yet.", isError: true };
  return { output: call.error ?? `The tool ${call.status.replace("_", " ")}.`, isError: true };
}

/** The page's method, then the call recorded with what the page answered (JSON when it is). */
async function clientCall(call: ToolCallRequest, timeoutMs: number, host: ToolHost): Promise<ToolCall> {
  const started = performance.now();
  let outcome: ToolCallOutcome;
  try {
    const answer = await host.callPage(call.name, JSON.stringify(call.arguments), timeoutMs);
    outcome = { status: "succeeded", result: parsed(answer), duration_ms: elapsed(started) };
  } catch (error) {
    const timedOut = /timeout|timed out/i.test(String((error as { message?: unknown })?.message ?? error));
    outcome = timedOut
      ? { status: "timed_out", error: `The page did not answer within ${timeoutMs} ms.`, duration_ms: elapsed(started) }
      : { status: "failed", error: `The page could not do it: ${messageOf(error)}`, duration_ms: elapsed(started) };
  }
  return host.run(call, outcome).catch(() => ({ ...recordedLocally(call, outcome) }));
}

/** The goodbye heard (the LLM's own words before the call, or ours), then the call recorded: the session ends. */
async function endSession(call: ToolCallRequest, host: ToolHost, ctx: voice.RunContext): Promise<string> {
  const started = performance.now();
  await ctx.waitForPlayout();
  const said = ctx.speechHandle.chatItems.some((item: llm.ChatItem) => item.type === "message" && (item.textContent ?? "").trim() !== "");
  if (!said) await ctx.session.say(GOODBYE, { allowInterruptions: false }).waitForPlayout();
  await host.run(call, { status: "succeeded", result: "ended", duration_ms: elapsed(started) });
  return "The session is over.";
}

/**
 * A result the framework dropped (its reply was talked over) put in the agent's context, beside its call,
 * so that the LLM knows it: with the next turn, or at once when nobody is talking.
 */
export async function addLateResult(
  agent: voice.Agent,
  session: voice.AgentSession,
  call: ToolCallRequest,
  output: string,
  isError: boolean,
): Promise<void> {
  const context = agent.chatCtx.copy();
  const has = (type: string) => context.items.some((item) => item.type === type && "callId" in item && item.callId === call.id);
  if (has("function_call_output")) return;
  const items: llm.ChatItem[] = [];
  if (!has("function_call"))
    items.push(llm.FunctionCall.create({ callId: call.id, name: call.name, args: JSON.stringify(call.arguments) }));
  items.push(llm.FunctionCallOutput.create({ callId: call.id, name: call.name, output, isError }));
  context.insert(items);
  await agent.updateChatCtx(context);
  if (session.agentState === "listening" && session.userState !== "speaking") session.generateReply();
}

function recordedLocally(call: ToolCallRequest, outcome: ToolCallOutcome): ToolCall {
  return {
    id: call.id,
    name: call.name,
    type: "client",
    arguments: call.arguments,
    status: outcome.status,
    result: outcome.result ?? null,
    error: outcome.error ?? null,
    started_at: new Date().toISOString(),
    duration_ms: outcome.duration_ms,
  };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const elapsed = (started: number) => Math.round(performance.now() - started);
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300);
