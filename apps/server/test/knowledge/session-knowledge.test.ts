/**
 * A session's knowledge (contract guide, "Knowledge"): the documents its digital human listed when the
 * session was created reach the job's dispatch, the job searches them with its token
 * (searchSessionKnowledge) exactly as searchKnowledge would, a document deleted mid-session is never
 * given again, and the turn's report names the passages in session.participant_turn.
 */
import { digitalHumanToken, WebhookReceiver } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIGITAL_HUMANS, expectApiError, expectData, KEYS, until, useHarness } from "../support/harness.js";

const h = useHarness({ SWEEP_INTERVAL_MS: "100" });
const [AVA] = DIGITAL_HUMANS;
const events = new WebhookReceiver();
beforeAll(() => events.start());
afterAll(() => events.stop());

type Session = { id: string; room_name: string };

async function ready(content: string, name = "Hotel"): Promise<string> {
  const doc = expectData(await h.client(KEYS.aTest).createDocument({ name, format: "markdown", content }), 201);
  await until(async () => expectData(await h.client(KEYS.aTest).getDocument(doc.id)).status === "ready");
  return doc.id;
}

async function sessionWith(documentIds: string[]): Promise<{ session: Session; digitalHumanId: string }> {
  const dh = expectData(
    await h.client(KEYS.aTest).createDigitalHuman({ name: "Maya", appearance: AVA.id, knowledge: { document_ids: documentIds } }),
    201,
  );
  const session = expectData(await h.client(KEYS.aTest).createSession({ digital_human_id: dh.id, participant_identity: "ada" }), 201);
  return { session, digitalHumanId: dh.id };
}

async function search(session: Session, body: Record<string, unknown>, as: Session = session): Promise<Response> {
  const token = await digitalHumanToken(as.room_name, { identity: "agent-AJ_one" });
  return fetch(`${h.url}/v1/sessions/${session.id}/conversation/knowledge`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}

describe("searchSessionKnowledge", () => {
  it("answers the job what searchKnowledge answers for its digital human, and the dispatch says it has documents", async () => {
    const doc = await ready("# Breakfast\nBreakfast is served from 7:00 to 10:30.\n\n# Parking\nThe garage has 40 places.");
    const { session, digitalHumanId } = await sessionWith([doc]);
    const [dispatch] = h.livekit.callsOf("CreateRoom").filter((call) => call.body.name === session.room_name);
    expect(JSON.parse(dispatch?.body.agents[0].metadata).digital_human.knowledge).toEqual({ document_ids: [doc] });
    const res = await search(session, { query: "What time is breakfast?" });
    expect(res.status).toBe(200);
    const found = (await res.json()) as { results: { document_id: string; text: string }[] };
    expect(found.results[0]?.text).toContain("Breakfast is served");
    const same = expectData(await h.client(KEYS.aTest).searchKnowledge(digitalHumanId, { query: "What time is breakfast?" }));
    expect(found).toEqual(same);
  });

  it("keeps the documents the session was created with, and never gives a document deleted since", async () => {
    const first = await ready("# Spa\nThe sauna opens at 9:00.");
    const second = await ready("# Spa\nThe steam room opens at 10:00.");
    const { session, digitalHumanId } = await sessionWith([first, second]);
    await h.client(KEYS.aTest).updateDigitalHuman(digitalHumanId, { knowledge: { document_ids: [] } });
    const before = (await (await search(session, { query: "When does the spa open?" })).json()) as { results: { document_id: string }[] };
    expect(before.results.map((r) => r.document_id).sort()).toEqual([first, second].sort());
    await h.client(KEYS.aTest).deleteDocument(first);
    const after = (await (await search(session, { query: "When does the spa open?" })).json()) as { results: { document_id: string }[] };
    expect(after.results.map((r) => r.document_id)).toEqual([second]);
  });

  it("answers nothing for a session without documents, 401 to another session's token, 409 once the session ended", async () => {
    const { session } = await sessionWith([]);
    expect(await (await search(session, { query: "breakfast" })).json()).toEqual({ results: [] });
    const other = await sessionWith([]);
    await expectApiError(await search(session, { query: "breakfast" }, other.session), 401, "unauthorized");
    await expectApiError(await search(session, { query: "" }), 422, "validation_failed");
    await h.client(KEYS.aTest).endSession(session.id);
    await expectApiError(await search(session, { query: "breakfast" }), 409, "session_ended");
  });
});

describe("the participant's turn", () => {
  it("names the passages it was given in session.participant_turn, [] when none", async () => {
    const endpoint = expectData(
      await h.client(KEYS.aTest).createWebhookEndpoint({ url: events.url, event_types: ["session.participant_turn"] }),
      201,
    );
    events.secrets = [endpoint.secret ?? ""];
    const doc = await ready("# Breakfast\nBreakfast is at eight.");
    const { session } = await sessionWith([doc]);
    const token = await digitalHumanToken(session.room_name, { identity: "agent-AJ_one" });
    const at = new Date().toISOString();
    const given = [{ document_id: doc, score: 0.42 }];
    const res = await fetch(`${h.url}/v1/sessions/${session.id}/conversation/reports`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({
        participant_identity: "agent-AJ_one",
        reports: [
          { type: "participant_turn", id: "t-1", text: "Breakfast?", started_at: at, ended_at: at, knowledge: given },
          { type: "participant_turn", id: "t-2", text: "Thanks.", started_at: at, ended_at: at },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const turns = await until(() => {
      const mine = events.received.filter((r) => r.body.data.session_id === session.id);
      return mine.length === 2 ? mine : undefined;
    });
    expect(Object.fromEntries(turns.map((t) => [t.body.data.turn_id, t.body.data.knowledge]))).toEqual({ "t-1": given, "t-2": [] });
    const wrong = await fetch(`${h.url}/v1/sessions/${session.id}/conversation/reports`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({
        participant_identity: "agent-AJ_one",
        reports: [{ type: "utterance_ended", id: "u-1", ended_at: at, knowledge: given }],
      }),
    });
    const error = await expectApiError(wrong, 422, "validation_failed");
    expect(error.detail[0].path).toBe("reports.0.knowledge");
  });
});
