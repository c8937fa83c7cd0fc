/**
 * The tool call operations of API keys (listSessionToolCalls, callTestTool): HTTP to ToolCallService
 * calls and back. The digital human's runToolCall is in digital-human-routes.ts.
 */
import type { ToolCallService } from "../../domain/tools/tool-call-service.js";
import type { OperationHandlers } from "../operations.js";

export function toolCallOperations(tools: ToolCallService): Pick<OperationHandlers, "listSessionToolCalls" | "callTestTool"> {
  return {
    // GET /v1/sessions/{session_id}/tool-calls
    listSessionToolCalls: async ({ path }, principal) => ({ body: await tools.list(principal, path.session_id) }),

    // POST /v1/test-helpers/sessions/{session_id}/tool-calls
    callTestTool: async ({ path, body }, principal) => ({ body: await tools.callTest(principal, path.session_id, body) }),
  };
}
