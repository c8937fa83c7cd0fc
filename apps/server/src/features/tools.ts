/**
 * Tools as a feature: the calls a digital human's LLM makes (to the customer's endpoint, to the page, or
 * the built-in ones), run for it and listed for API keys, and the test helper that calls one.
 */
import { ToolCallService, type ToolCallServiceDeps } from "../domain/tools/tool-call-service.js";
import { toolCallJobOperations, toolCallOperations } from "../http/routes/tool-calls.js";
import type { Feature } from "./feature.js";

export function toolsOf(deps: ToolCallServiceDeps) {
  const tools = new ToolCallService(deps);
  return {
    tools,
    feature: {
      name: "tools",
      operations: toolCallOperations(tools),
      digitalHumanOperations: toolCallJobOperations(tools),
    } satisfies Feature,
  };
}
