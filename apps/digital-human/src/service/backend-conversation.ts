/**
 * The job's link to its session's backend (contract guide, "Driving a session"): it listens for the
 * service's nudges (data on `dhs.conversation`) before its first pull, pulls the backend's queue
 * (conversation-queue.ts), has the driver do what it holds (conversation-driver.ts), and reports the
 * conversation (conversation-reports.ts). The digital human's own lines are reported apart from the
 * lines of a say, which the say's own start and end stand for.
 */
import type { log } from "@livekit/agents";
import { type Room, RoomEvent } from "@livekit/rtc-node";
import type { Passage } from "../conversation/turn-knowledge.js";
import { reportToWorker } from "../worker/worker-report.js";
import { ConversationDriver, type DrivenVoice, type SayOutcome } from "./conversation-driver.js";
import { CONVERSATION_TOPIC, ConversationQueue } from "./conversation-queue.js";
import { ConversationReports } from "./conversation-reports.js";
import { type ServiceAccess, ServiceClient } from "./service-client.js";

export interface BackendConversationOptions {
  room: Room;
  service: ServiceAccess;
  /** The LiveKit job's id: the ids of the job's own reports begin with it. */
  jobId: string;
  voice: DrivenVoice;
  logger: ReturnType<typeof log>;
}

export class BackendConversation {
  private readonly reports: ConversationReports;
  private readonly driver: ConversationDriver;
  private readonly queue: ConversationQueue;
  private readonly reconnected = () => this.queue.nudge();
  private readonly nudged = (_payload: Uint8Array, _from?: unknown, _kind?: unknown, topic?: string) => {
    if (topic === CONVERSATION_TOPIC) this.queue.nudge();
  };

  constructor(private readonly options: BackendConversationOptions) {
    const { room, service, logger } = options;
    const identity = () => room.localParticipant?.identity ?? "";
    const api = new ServiceClient(service, identity);
    const logAt = (level: "info" | "warn", message: string, fields: Record<string, unknown> = {}) => logger[level](fields, message);
    this.reports = new ConversationReports({ api, identity, idPrefix: options.jobId, onError: (message) => logger.warn(message) });
    // Counted by the worker (worker-metrics.ts).
    const said = (outcome: SayOutcome) => void reportToWorker({ event: "say", outcome });
    this.driver = new ConversationDriver(options.voice, this.reports, { log: logAt, said });
    this.queue = new ConversationQueue({
      api,
      identity,
      log: logAt,
      deliver: (delivery) => {
        this.reports.turnEvents = delivery.turnEvents;
        return this.driver.deliver(delivery);
      },
    });
  }

  /** Listens for nudges, then pulls for the first time: a nudge sent after that pull is not missed. */
  start(): void {
    this.options.room.on(RoomEvent.DataReceived, this.nudged);
    // A nudge sent while the job's connection was being re-established is lost with it.
    this.options.room.on(RoomEvent.Reconnected, this.reconnected);
    this.queue.start();
  }

  /** The greeting has started (or there is none): says may follow it. */
  greeted(): void {
    this.driver.open();
  }

  /**
   * Reported at once, or, for a session with documents, once the turn's passages are known (a search
   * bounded by its deadline, which the reply waits for too), so the report names them.
   */
  participantSaid(text: string, startedAt: Date, endedAt: Date, knowledge?: Promise<Passage[]>): void {
    if (knowledge === undefined) this.reports.participantTurn(text, startedAt, endedAt);
    else void knowledge.then((passages) => this.reports.participantTurn(text, startedAt, endedAt, passages));
  }

  lineStarted(text: string): void {
    if (!this.driver.sayingNow) this.reports.lineStarted(text);
  }

  lineHeard(interrupted: boolean): void {
    this.reports.lineEnded(interrupted);
  }

  /** No more pulls nor says; a say being spoken ends as the session closes (then `flush`). */
  stop(): void {
    this.options.room.off(RoomEvent.DataReceived, this.nudged);
    this.options.room.off(RoomEvent.Reconnected, this.reconnected);
    this.queue.stop();
    this.driver.stop();
  }

  /** Resolves once every report so far was posted or given up. */
  flush(): Promise<void> {
    return this.reports.flush();
  }
}
