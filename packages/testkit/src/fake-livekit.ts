/**
 * A stand-in for LiveKit's Twirp RoomService (CreateRoom, DeleteRoom, ListRooms, SendData) and AgentDispatchService
 * (ListDispatch, CreateDispatch) over HTTP, as livekit-server-sdk
 * calls it. It checks the SDK's bearer JWT like LiveKit does, records every call, and can be told to be
 * slow, to answer late what it already did, to fail with 503 or to stop answering, so tests can see what
 * the service does then.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { TokenVerifier } from "livekit-server-sdk";
import { LIVEKIT } from "./fixtures.js";

export interface RecordedCall {
  method: string;
  body: Record<string, any>;
}

/** ok; fail: 503; hang: never answers; refuse: 401, as LiveKit answers credentials it does not know. */
export type Mode = "ok" | "fail" | "hang" | "refuse";

export class FakeLiveKit {
  readonly calls: RecordedCall[] = [];
  /** The method of every request as it arrived, answered or not (calls lists those that were answered). */
  readonly arrived: string[] = [];
  /** Names of the rooms CreateRoom was asked for, as the requests arrived (before any delay). */
  readonly roomsAsked: string[] = [];
  readonly rooms = new Set<string>();
  /** Agent dispatches by room, each with the statuses of its jobs (as LiveKit's JobStatus names). */
  readonly dispatches = new Map<string, { agentName: string; jobs: string[] }[]>();
  /** Whether a worker takes each new dispatch (a running job) or none is registered (no job at all). */
  workerAvailable = true;
  mode: Mode = "ok";
  delayMs = 0;
  /** Carries a call out at once but answers it this much later (a slow LiveKit past the client's timeout). */
  answerLateMs = 0;
  /** Each room's metadata and creation time (ms), as ListRooms answers them. */
  readonly roomInfo = new Map<string, { metadata: string; creationTimeMs: number }>();
  private held: { until: Promise<void>; release: () => void } | undefined;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly verifier: TokenVerifier;

  constructor(
    readonly apiKey: string = LIVEKIT.apiKey,
    readonly apiSecret: string = LIVEKIT.apiSecret,
  ) {
    this.verifier = new TokenVerifier(apiKey, apiSecret);
  }

  get url(): string {
    const address = this.server?.address() as AddressInfo | undefined;
    if (!address) throw new Error("the fake LiveKit is not listening");
    return `http://127.0.0.1:${address.port}`;
  }

  /**
   * Holds every request that arrives from now on (after `arrived` and `roomsAsked` record it) until the
   * returned function is called: a test that needs a call in flight waits for it to arrive, not a while.
   */
  hold(): () => void {
    let release = () => {};
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held = {
      until,
      release: () => {
        if (this.held === held) this.held = undefined;
        release();
      },
    };
    this.held = held;
    return held.release;
  }

  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Listens on port, or on a free port; a stopped fake can start again on the port it had. */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      this.server?.once("error", reject);
      this.server?.listen(port, "127.0.0.1", resolve);
    });
    return this;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  reset(): void {
    this.calls.length = 0;
    this.arrived.length = 0;
    this.roomsAsked.length = 0;
    this.rooms.clear();
    this.dispatches.clear();
    this.workerAvailable = true;
    this.mode = "ok";
    this.delayMs = 0;
    this.answerLateMs = 0;
    this.roomInfo.clear();
    this.held?.release();
  }

  private dispatch(room: string, agentName: string): void {
    const list = this.dispatches.get(room) ?? [];
    list.push({ agentName, jobs: this.workerAvailable ? ["JS_RUNNING"] : [] });
    this.dispatches.set(room, list);
  }

  /** The job of every dispatch to the room ends, as when its worker crashes. */
  endJobs(room: string): void {
    for (const d of this.dispatches.get(room) ?? []) d.jobs = d.jobs.map(() => "JS_FAILED");
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.url?.match(/^\/twirp\/livekit\.(?:RoomService|AgentDispatchService)\/(\w+)$/)?.[1];
    this.arrived.push(method ?? String(req.url));
    let raw = "";
    for await (const chunk of req) raw += chunk;
    if (method === "CreateRoom") this.roomsAsked.push(String((JSON.parse(raw || "{}") as { name?: string }).name));
    if (this.mode === "hang") return; // never answers; the client's timeout must end the call
    if (this.held) await this.held.until;
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const late = this.answerLateMs;
    const reply = (status: number, body: unknown): void => {
      const send = () => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
      if (late > 0) setTimeout(send, late);
      else send();
    };
    if (this.mode === "fail") return reply(503, { code: "unavailable", msg: "fake LiveKit is down" });
    if (this.mode === "refuse") return reply(401, { code: "unauthenticated", msg: "invalid API key" });
    if (!method) return reply(404, { code: "bad_route", msg: `no route ${req.url}` });

    let grants: Record<string, any>;
    try {
      const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
      grants = (await this.verifier.verify(token)) as Record<string, any>;
    } catch {
      return reply(401, { code: "unauthenticated", msg: "invalid token" });
    }
    const grant = method === "ListRooms" ? "roomList" : method.endsWith("Dispatch") || method === "SendData" ? "roomAdmin" : "roomCreate";
    if (!grants.video?.[grant]) return reply(403, { code: "permission_denied", msg: `${grant} grant required` });

    const body = raw ? (JSON.parse(raw) as Record<string, any>) : {};
    this.calls.push({ method, body });
    switch (method) {
      case "CreateRoom":
        // As LiveKit: CreateRoom of a room that exists answers it (its agents are not dispatched again).
        if (!this.rooms.has(body.name)) {
          this.rooms.add(body.name);
          this.roomInfo.set(body.name, { metadata: body.metadata ?? "", creationTimeMs: Date.now() });
          for (const agent of body.agents ?? []) this.dispatch(body.name, agent.agentName);
        }
        return reply(200, {
          sid: `RM_${body.name}`,
          name: body.name,
          emptyTimeout: body.emptyTimeout,
          departureTimeout: body.departureTimeout,
          maxParticipants: body.maxParticipants,
          metadata: body.metadata,
        });
      case "ListRooms":
        return reply(200, {
          rooms: [...this.rooms]
            .filter((name) => !body.names?.length || body.names.includes(name))
            .map((name) => {
              const info = this.roomInfo.get(name);
              const creationTimeMs = info?.creationTimeMs ?? Date.now();
              return {
                sid: `RM_${name}`,
                name,
                metadata: info?.metadata ?? "",
                creationTime: String(Math.floor(creationTimeMs / 1000)),
                creationTimeMs: String(creationTimeMs),
              };
            }),
        });
      case "ListDispatch":
        return reply(200, {
          agentDispatches: (this.dispatches.get(body.room) ?? []).map((d, i) => ({
            id: `AD_${i}`,
            agentName: d.agentName,
            room: body.room,
            state: { jobs: d.jobs.map((status, j) => ({ id: `AJ_${i}_${j}`, state: { status } })) },
          })),
        });
      case "CreateDispatch":
        this.dispatch(body.room, body.agentName);
        return reply(200, { id: "AD_new", agentName: body.agentName, room: body.room });
      case "SendData":
        // As LiveKit: data for a room it does not have is refused.
        if (!this.rooms.has(body.room)) return reply(404, { code: "not_found", msg: "room not found" });
        return reply(200, {});
      case "DeleteRoom":
        this.roomInfo.delete(body.room);
        if (!this.rooms.delete(body.room)) return reply(404, { code: "not_found", msg: "room not found" });
        return reply(200, {});
      default:
        return reply(404, { code: "bad_route", msg: `no method ${method}` });
    }
  }
}
