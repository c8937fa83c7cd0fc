import { EventEmitter } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { components } from "@dhs/contract";
import { until } from "@dhs/testkit";
import { initializeLogger, log } from "@livekit/agents";
import { type Room, RoomEvent } from "@livekit/rtc-node";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { BackendConversation } from "./backend-conversation.js";
import type { DrivenVoice } from "./conversation-driver.js";
import type { ConversationItem } from "./conversation-queue.js";

type Report = components["schemas"]["ConversationReport"];
const SESSION = "3fa85f64-5717-4562-b3fc-2c963f66afa6";

beforeAll(() => initializeLogger({ pretty: false, level: "warn" }));
const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** The service's two operations for the digital human, over a queue the test fills. */
async function service(state: { items: ConversationItem[]; turnEvents: boolean; refuse: string[] }) {
  const pulls: number[] = [];
  const reports: Report[] = [];
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => {
      raw += chunk;
    });
    req.on("end", () => {
      const body = JSON.parse(raw);
      res.writeHead(200, { "Content-Type": "application/json" });
      if (req.url?.endsWith("/conversation/pull")) {
        pulls.push(body.after);
        const items = state.items.filter((i) => i.seq > body.after);
        return void res.end(JSON.stringify({ items, interrupt_seq: 0, turn_events: state.turnEvents }));
      }
      reports.push(...body.reports);
      res.end(JSON.stringify({ results: body.reports.map((r: Report) => ({ accepted: !state.refuse.includes(r.id) })) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stops.push(() => void server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pulls, reports };
}

/** Says each line at once, as the Speaker would tell the job: its line starts, then is heard whole. */
function voiceOf(backend: () => BackendConversation | undefined, said: string[]): DrivenVoice {
  return {
    async say(text) {
      said.push(text);
      backend()?.lineStarted(text);
      backend()?.lineHeard(false);
      return { interrupted: false };
    },
    interrupt: () => undefined,
    addNote: async () => undefined,
    reply: undefined,
    idle: async () => undefined,
  };
}

/** The testkit's until, polling often: the tests count what happened by the moment it holds. */
const soon = (check: () => boolean) => until(check, { everyMs: 5, timeoutMs: 5000 });

async function connected(state: { items: ConversationItem[]; turnEvents: boolean; refuse: string[] }) {
  const s = await service(state);
  const room = Object.assign(new EventEmitter(), { localParticipant: { identity: "agent-AJ_1" } }) as unknown as Room;
  const said: string[] = [];
  let backend: BackendConversation | undefined;
  backend = new BackendConversation({
    room,
    service: { serviceUrl: s.url, sessionId: SESSION, roomName: `dhs-${SESSION}`, apiKey: "devkey", apiSecret: "secret" },
    jobId: "AJ_1",
    voice: voiceOf(() => backend, said),
    logger: log(),
  });
  stops.push(() => backend?.stop());
  const nudge = (topic: string) => room.emit(RoomEvent.DataReceived, new TextEncoder().encode('{"seq":9}'), undefined, undefined, topic);
  return { ...s, backend, said, nudge };
}

const say = (seq: number, text: string): ConversationItem => ({ seq, type: "say", id: `utt_${seq}`, text, interrupt: false });

describe("BackendConversation", () => {
  it("pulls on joining and on each nudge of its topic, and says what the service accepts, after the greeting, in order", async () => {
    const state = { items: [say(1, "First."), say(2, "Expired."), say(3, "Third.")], turnEvents: false, refuse: ["utt_2"] };
    const { backend, pulls, reports, said, nudge } = await connected(state);
    backend.start();
    await soon(() => pulls.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(said).toEqual([]);
    backend.greeted();
    await soon(() => said.length === 2);
    expect(said).toEqual(["First.", "Third."]);
    nudge("lk.chat");
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(pulls).toEqual([0]);
    state.items.push(say(4, "Fourth."));
    nudge("dhs.conversation");
    await soon(() => said.length === 3);
    expect(pulls).toEqual([0, 3]);
    await backend.flush();
    // The lines of a say are the say's: no utterance of its own is reported for them.
    expect(reports.map((r) => `${r.type} ${r.id}`)).toEqual([
      "utterance_started utt_1",
      "utterance_ended utt_1",
      "utterance_started utt_2",
      "utterance_started utt_3",
      "utterance_ended utt_3",
      "utterance_started utt_4",
      "utterance_ended utt_4",
    ]);
  });

  it("reports the participant's turns and its own lines only while the service wants turn events", async () => {
    const state = { items: [], turnEvents: false, refuse: [] };
    const { backend, pulls, reports, nudge } = await connected(state);
    backend.start();
    await soon(() => pulls.length === 1);
    backend.participantSaid("Hello?", new Date(), new Date());
    backend.lineStarted("I see.");
    backend.lineHeard(false);
    state.turnEvents = true;
    nudge("dhs.conversation");
    await soon(() => pulls.length === 2);
    // Pulls go one at a time: the third starts once the second's answer was taken.
    nudge("dhs.conversation");
    await soon(() => pulls.length === 3);
    backend.participantSaid("Where is my order?", new Date(), new Date());
    backend.lineStarted("It shipped today.");
    backend.lineHeard(true);
    await backend.flush();
    expect(reports.map((r) => [r.type, r.id, r.text, r.interrupted])).toEqual([
      ["participant_turn", "turn-AJ_1-1", "Where is my order?", undefined],
      ["utterance_started", "dh-AJ_1-1", "It shipped today.", undefined],
      ["utterance_ended", "dh-AJ_1-1", undefined, true],
    ]);
  });
});
