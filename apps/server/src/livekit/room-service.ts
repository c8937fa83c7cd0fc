/**
 * LiveKit's RoomService through livekit-server-sdk. A session's room is created explicitly, with the
 * digital human's agent dispatched in the same CreateRoom call, so a room never exists without its agent.
 * A failure to reach LiveKit (connection refused, timed out, 5xx, 429) becomes DependencyUnavailableError
 * (503, retry later); LiveKit refusing our credentials (401, 403) or our request (another 4xx) becomes
 * DependencyFaultError (500: a retry cannot help, an operator must). A create that fails keeps nothing.
 */
import type { DigitalHumanJob } from "@dhs/contract";
import { JobStatus } from "@livekit/protocol";
import { DependencyFaultError, DependencyUnavailableError } from "../domain/dependency-errors.js";
import type { AgentDispatchRequest, AgentJob, CreateRoomRequest, RoomService, SessionRoom } from "../domain/sessions/ports.js";
import type { Tracing } from "../tracing/tracing.js";
import { roomMetadata, roomOwner } from "./event-receiver.js";
import { LiveKitApiError, TwirpClient } from "./twirp-client.js";

export interface LiveKitCredentials {
  /** HTTP(S) address of LiveKit's API. */
  apiUrl: string;
  apiKey: string;
  apiSecret: string;
  /** A call that has not answered by then counts as LiveKit being unavailable. */
  timeoutMs: number;
}

// A job LiveKit still counts on: waiting for a worker to accept it, or running. Protobuf's JSON gives
// enums by name; numbers are accepted too.
const LIVE_JOB = new Set<string | number>(["JS_PENDING", "JS_RUNNING", JobStatus.JS_PENDING, JobStatus.JS_RUNNING]);

interface ListDispatchResponse {
  agentDispatches?: { agentName?: string; state?: { jobs?: { state?: { status?: string | number } }[] } }[];
}

interface ListRoomsResponse {
  rooms?: { name?: string; metadata?: string; creationTime?: string | number; creationTimeMs?: string | number }[];
}

/** The data topic of the nudges (contract: pullConversation). */
export const CONVERSATION_TOPIC = "dhs.conversation";

export class LiveKitRoomService implements RoomService {
  private readonly twirp: TwirpClient;

  /** `deployment` names this deployment in its rooms' metadata (REDIS_KEY_PREFIX). */
  constructor(
    credentials: LiveKitCredentials,
    private readonly deployment: string,
    tracing?: Tracing,
  ) {
    this.twirp = new TwirpClient({ ...credentials, ...(tracing ? { tracing } : {}) });
  }

  /**
   * Every room LiveKit has, keeping those whose name and metadata say this deployment made them for a
   * session: a room of another deployment on the same LiveKit, an inconsistent one, or one made before
   * rooms carried their deployment is never this service's to delete.
   */
  async listSessionRooms(): Promise<SessionRoom[]> {
    const answer = await callLiveKit(() => this.twirp.call<ListRoomsResponse>("RoomService", "ListRooms", {}));
    return (answer.rooms ?? []).flatMap((room) => {
      let owner: ReturnType<typeof roomOwner>;
      try {
        owner = roomOwner(room.name, room.metadata);
      } catch {
        return [];
      }
      if (!owner || owner.deployment !== this.deployment) return [];
      const createdAtMs = Number(room.creationTimeMs ?? 0) || Number(room.creationTime ?? 0) * 1000;
      return [{ name: room.name as string, accountId: owner.accountId, sessionId: owner.sessionId, createdAtMs }];
    });
  }

  /**
   * Judged by live jobs, not by dispatches: a dispatch made while no worker was registered stays listed
   * with no job, and one whose worker crashed keeps a job that ended.
   */
  async hasLiveAgentJob(roomName: string, agentName: string): Promise<boolean> {
    const answer = await callLiveKit(() =>
      this.twirp.call<ListDispatchResponse>("AgentDispatchService", "ListDispatch", { room: roomName }, roomName),
    );
    return (answer.agentDispatches ?? []).some(
      (d) => d.agentName === agentName && (d.state?.jobs ?? []).some((job) => LIVE_JOB.has(job.state?.status ?? "JS_FAILED")),
    );
  }

  async dispatchAgent(request: AgentDispatchRequest): Promise<void> {
    const metadata = jobMetadata(request.sessionId, request.accountId, request.agent);
    await callLiveKit(() =>
      this.twirp.call(
        "AgentDispatchService",
        "CreateDispatch",
        { room: request.roomName, agentName: request.agent.agentName, metadata },
        request.roomName,
      ),
    );
  }

  async createRoom(request: CreateRoomRequest): Promise<void> {
    await callLiveKit(() =>
      this.twirp.call("RoomService", "CreateRoom", {
        name: request.name,
        emptyTimeout: request.emptyTimeoutS,
        departureTimeout: request.departureTimeoutS,
        maxParticipants: request.maxParticipants,
        metadata: roomMetadata(request.sessionId, request.accountId, this.deployment),
        agents: [{ agentName: request.agent.agentName, metadata: jobMetadata(request.sessionId, request.accountId, request.agent) }],
      }),
    );
  }

  /**
   * One cheap authenticated call (list one room by a name no session has): "refused" when LiveKit
   * rejects the credentials, "unreachable" when it does not answer.
   */
  async checkCredentials(): Promise<"ok" | "refused" | "unreachable"> {
    try {
      await callLiveKit(() => this.twirp.call("RoomService", "ListRooms", { names: ["dhs-credentials-check"] }));
      return "ok";
    } catch (error) {
      return error instanceof DependencyFaultError ? "refused" : "unreachable";
    }
  }

  /** Closes the connections to LiveKit, once nothing calls any more. */
  async close(): Promise<void> {
    await this.twirp.close();
  }

  /**
   * ConversationNudger: a reliable data message to the session's digital human alone, on the topic its
   * pull loop listens to; the payload says only how far the queue goes (the items are pulled with the
   * job's own token, so nothing of the conversation travels through the room).
   */
  async nudge(roomName: string, identity: string, seq: number): Promise<void> {
    const data = Buffer.from(JSON.stringify({ seq })).toString("base64");
    await callLiveKit(() =>
      this.twirp.call(
        "RoomService",
        "SendData",
        { room: roomName, data, kind: "RELIABLE", destinationIdentities: [identity], topic: CONVERSATION_TOPIC },
        roomName,
      ),
    );
  }

  async deleteRoom(name: string): Promise<void> {
    try {
      await callLiveKit(() => this.twirp.call("RoomService", "DeleteRoom", { room: name }));
    } catch (error) {
      // Deleting a room that is already gone is what the caller wanted.
      if (isNotFound(error)) return;
      throw error;
    }
  }
}

/**
 * The digital human's job metadata, the contract's DigitalHumanJob: the room's own metadata plus what the
 * digital human says and when. Participants can read room metadata but not a job's.
 */
export function jobMetadata(sessionId: string, accountId: string, agent: AgentJob): string {
  const job: DigitalHumanJob = { session_id: sessionId, account_id: accountId, ...agent.job };
  return JSON.stringify(job);
}

function isNotFound(error: unknown): boolean {
  const cause = error instanceof DependencyUnavailableError ? error.cause : error;
  return cause instanceof LiveKitApiError && (cause.status === 404 || cause.code === "not_found");
}

/** A LiveKit call whose failure is sorted: unreachable (503), not found (as it is), or a fault (500). */
async function callLiveKit<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof LiveKitApiError) || error.status >= 500 || error.status === 429 || error.status === 408) {
      throw new DependencyUnavailableError("livekit", { cause: error });
    }
    if (error.status === 404) throw error;
    if (error.status === 401 || error.status === 403) {
      throw new DependencyFaultError(
        "livekit",
        `LiveKit refused this service's credentials (${error.status} ${error.code}): check LIVEKIT_API_KEY and LIVEKIT_API_SECRET`,
        { cause: error },
      );
    }
    throw new DependencyFaultError("livekit", `LiveKit refused the request (${error.status} ${error.code}: ${error.message})`, {
      cause: error,
    });
  }
}
