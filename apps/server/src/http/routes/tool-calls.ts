/**
 * The tool call operations of API keys (listSessionToolCalls, callTestTool): HTTP to ToolCallService
 * calls and back, and the digital human's runToolCall.
 */
import type { ToolCallService } from "../../domain/tools/tool-call-service.js";
import type { DigitalHumanOperationHandlers, OperationHandlers } from "../operations.js";

export function toolCallOperations(tools: ToolCallService): Pick<OperationHandlers, "listSessionToolCalls" | "callTestTool"> {
  return {
    // GET /v1/sessions/{session_id}/tool-calls
    listSessionToolCalls: async ({ path }, principal) => ({ body: await tools.list(principal, path.session_id) }),

    // POST /v1/test-helpers/sessions/{session_id}/tool-calls
    callTestTool: async ({ path, body }, principal) => ({ body: await tools.callTest(principal, path.session_id, body) }),
  };
}

/** The digital human's: a tool its LLM called, run for the participant it speaks with. */
export function toolCallJobOperations(tools: ToolCallService): Pick<DigitalHumanOperationHandlers, "runToolCall"> {
  return {
    // POST /v1/sessions/{session_id}/conversation/tool-calls
    runToolCall: async ({ body }, caller) => {
      caller.speaksFor(body.participant_identity);
      return { body: await tools.run(caller.sessionId, body) };
    },
  };
}
