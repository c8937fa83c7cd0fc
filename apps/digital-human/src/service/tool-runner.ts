/**
 * Where the job's tools run (conversation/session-tools.ts): the service's runToolCall, keyed by the
 * LLM's call id, so the retries here (a lost answer, a 503) never run a call twice; and the
 * participant's page, by LiveKit RPC. A call the service could not be asked about is a failure the LLM
 * is told of, never a silence.
 */
import type { ToolCall, ToolCallOutcome } from "@dhs/contract";
import type { Room } from "@livekit/rtc-node";
import type { ToolCallRequest, ToolHost } from "../conversation/session-tools.js";
import { type ServiceAccess, ServiceClient } from "./service-client.js";

/** The longest a tool may take (the contract's ToolTimeout maximum) and the service's recording after it. */
const LONGEST_CALL_MS = 30_000 + 10_000;

export function toolRunner(options: {
  service: ServiceAccess;
  room: Room;
  /** The session's participant, whose page registers the client tools' methods. */
  participantIdentity: () => string | undefined;
}): Omit<ToolHost, "onLateResult"> {
  const identity = () => options.room.localParticipant?.identity ?? "";
  const api = new ServiceClient(options.service, identity);
  return {
    async run(call: ToolCallRequest, outcome?: ToolCallOutcome): Promise<ToolCall> {
      const answer = await api.runToolCall(
        {
          participant_identity: identity(),
          tool_call_id: call.id,
          name: call.name,
          arguments: call.arguments,
          ...(outcome === undefined ? {} : { outcome }),
        },
        { attempts: 3, baseMs: 250, attemptTimeoutMs: LONGEST_CALL_MS },
      );
      if (answer.ok) return answer.data;
      const why = answer.error?.detail === undefined ? answer.problem : JSON.stringify(answer.error.detail);
      return {
        id: call.id,
        name: call.name,
        type: outcome === undefined ? "webhook" : "client",
        arguments: call.arguments,
        status: "failed",
        result: null,
        error: `The tool could not be run: ${why.slice(0, 300)}`,
        started_at: new Date().toISOString(),
        duration_ms: 0,
      };
    },
    callPage(method: string, payload: string, timeoutMs: number): Promise<string> {
      const local = options.room.localParticipant;
      const destinationIdentity = options.participantIdentity();
      if (!local || destinationIdentity === undefined) return Promise.reject(new Error("the participant is not in the room"));
      return local.performRpc({ destinationIdentity, method, payload, responseTimeout: timeoutMs });
    },
  };
}
