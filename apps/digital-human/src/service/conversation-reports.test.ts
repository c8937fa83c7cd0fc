import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { components } from "@dhs/contract";
import { afterEach, describe, expect, it } from "vitest";
import { ConversationReports } from "./conversation-reports.js";
import { ServiceClient } from "./service-client.js";

type Posted = components["schemas"]["ConversationReports"];
const SESSION = "3fa85f64-5717-4562-b3fc-2c963f66afa6";

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** The service's reportConversation: answers each post with `answer` (a status), accepting every report but `refuse`'s ids. */
async function service(options: { statuses?: number[]; refuse?: string[] } = {}) {
  const posts: Posted[] = [];
  const statuses = [...(options.statuses ?? [])];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => {
      raw += chunk;
    });
    req.on("end", () => {
      const body = JSON.parse(raw) as Posted;
      posts.push(body);
      const status = statuses.shift() ?? 200;
      if (req.url !== `/v1/sessions/${SESSION}/conversation/reports` || status !== 200) return void res.writeHead(status).end("{}");
      const results = body.reports.map((r) => ({ accepted: !(options.refuse ?? []).includes(r.id) }));
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ results }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  const api = new ServiceClient(
    {
      serviceUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      sessionId: SESSION,
      roomName: `dhs-${SESSION}`,
      apiKey: "devkey",
      apiSecret: "secret",
    },
    () => "dh-test",
  );
  const errors: string[] = [];
  const reports = new ConversationReports({
    api,
    identity: () => "agent-AJ_1",
    idPrefix: "AJ_1",
    onError: (m) => errors.push(m),
    retryBaseMs: 1,
  });
  const sent = () => posts.flatMap((p) => p.reports);
  return { reports, posts, sent, errors };
}

const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 9, 0, s));

describe("ConversationReports", () => {
  it("asks before a say starts, with the job's identity, and tells whether it may be said", async () => {
    const { reports, posts, sent } = await service({ refuse: ["utt_2"] });
    expect(await reports.sayStarted("utt_1", " Your order shipped. ")).toBe(true);
    expect(await reports.sayStarted("utt_2", "Too late.")).toBe(false);
    reports.sayEnded("utt_1", false);
    await reports.flush();
    expect(posts[0]?.participant_identity).toBe("agent-AJ_1");
    expect(sent()[0]).toMatchObject({ type: "utterance_started", id: "utt_1", say: true, text: "Your order shipped." });
    expect(Date.parse(sent()[0]?.started_at ?? "")).toBeGreaterThan(Date.now() - 5000);
    expect(sent()[2]).toMatchObject({ type: "utterance_ended", id: "utt_1", say: true, interrupted: false });
    expect(sent()).toHaveLength(3);
  });

  it("batches what queued during a post, at most 20 a post, each report once", async () => {
    const { reports, posts, sent } = await service();
    reports.turnEvents = true;
    for (let i = 0; i < 45; i++) reports.participantTurn(`turn ${i}`, at(i), at(i + 1));
    await reports.flush();
    expect(posts.map((p) => p.reports.length)).toEqual([20, 20, 5]);
    expect(sent().map((r) => r.id)).toEqual(Array.from({ length: 45 }, (_, i) => `turn-AJ_1-${i + 1}`));
    expect(sent()[0]).toMatchObject({
      type: "participant_turn",
      text: "turn 0",
      started_at: at(0).toISOString(),
      ended_at: at(1).toISOString(),
    });
  });

  it("sends a post again as it was after a 503, and gives up after four attempts, saying so and refusing its say", async () => {
    const { reports, posts, errors } = await service({ statuses: [503] });
    expect(await reports.sayStarted("utt_1", "Hello.")).toBe(true);
    expect(posts).toHaveLength(2);
    expect(posts[1]).toEqual(posts[0]);
    expect(errors).toEqual([]);

    const down = await service({ statuses: [503, 503, 503, 503] });
    expect(await down.reports.sayStarted("utt_1", "Hello.")).toBe(false);
    expect(down.posts).toHaveLength(4);
    expect(down.errors[0]).toMatch(/^1 conversation reports not delivered: 503/);
    // The next report goes out as usual.
    expect(await down.reports.sayStarted("utt_2", "Hello again.")).toBe(true);
  });

  it("reports turns and the digital human's own lines only while turn events are wanted, and says always", async () => {
    const { reports, sent } = await service();
    reports.participantTurn("nobody listens", at(0), at(1));
    reports.lineStarted("Hello Ada!");
    reports.lineEnded(false);
    await reports.sayStarted("utt_1", "Said anyway.");
    reports.turnEvents = true;
    reports.participantTurn("hi", at(2), at(3));
    reports.lineStarted("Nice to meet you.");
    // Turned off between a line's start and its end: its end is still told.
    reports.turnEvents = false;
    reports.lineEnded(true);
    reports.lineStarted("Unheard of.");
    reports.lineEnded(false);
    await reports.flush();
    expect(sent().map((r) => [r.type, r.id, r.say])).toEqual([
      ["utterance_started", "utt_1", true],
      ["participant_turn", "turn-AJ_1-1", false],
      ["utterance_started", "dh-AJ_1-1", false],
      ["utterance_ended", "dh-AJ_1-1", false],
    ]);
    expect(sent()[3]?.interrupted).toBe(true);
  });

  it("sends texts the service takes: no control or bidirectional characters, nothing for a line with no visible one", async () => {
    const { reports, sent } = await service();
    reports.turnEvents = true;
    reports.lineStarted("Fine,\r\u0007 thanks \u202eevil");
    reports.lineEnded(false);
    reports.participantTurn("\u200b \u200d", at(0), at(1));
    reports.lineStarted("\u2066\u2069");
    reports.lineEnded(false);
    await reports.flush();
    expect(sent().map((r) => [r.type, r.text])).toEqual([
      ["utterance_started", "Fine,   thanks evil"],
      ["utterance_ended", undefined],
    ]);
  });

  it("stops reporting once the service says the session is not the job's (401, 404)", async () => {
    const { reports, posts, errors } = await service({ statuses: [404] });
    expect(await reports.sayStarted("utt_1", "Hello.")).toBe(false);
    expect(await reports.sayStarted("utt_2", "Hello?")).toBe(false);
    reports.sayEnded("utt_1", true);
    await reports.flush();
    expect(posts).toHaveLength(1);
    expect(errors).toHaveLength(1);
  });
});
