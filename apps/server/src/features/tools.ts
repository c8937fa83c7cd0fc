/**
 * Tools as a feature: the calls a digital human's LLM makes (to the customer's endpoint, to the page, or
 * the built-in ones), run for it and listed for API keys, and the test helper that calls one.
 */
import { Histogram, type Registry } from "prom-client";
import type { StoredToolCall } from "../domain/tools/tool-call.js";
import { ToolCallService, type ToolCallServiceDeps } from "../domain/tools/tool-call-service.js";
import { toolCallJobOperations, toolCallOperations } from "../http/routes/tool-calls.js";
import type { Feature } from "./feature.js";

/** `registry`: the process's metrics registry, where the feature's own are counted. */
export function toolsOf(deps: Omit<ToolCallServiceDeps, "onSettled">, registry: Registry) {
  const durations = new Histogram({
    name: "dhs_tool_call_duration_seconds",
    help: "Tool calls that ended, by tool type (webhook, client, end_session) and status (succeeded, failed, timed_out), and how long they took.",
    labelNames: ["type", "status"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  /** Counts a call that ended, here or where the conversation gave it up (its session ended first). */
  const settled = (call: StoredToolCall): void =>
    durations.observe({ type: call.type, status: call.status }, (call.durationMs ?? 0) / 1000);
  const tools = new ToolCallService({ ...deps, onSettled: settled });
  return {
    tools,
    settled,
    feature: {
      name: "tools",
      operations: toolCallOperations(tools),
      digitalHumanOperations: toolCallJobOperations(tools),
    } satisfies Feature,
  };
}
