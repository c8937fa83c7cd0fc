/**
 * Sessions of a digital human (contract guide, "Digital humans"): a session dispatches the worker of its
 * digital human's appearance with the whole persona in the job's metadata (DigitalHumanJob), and keeps
 * the persona it was created with, whatever happens to the digital human afterwards: the model-based test
 * below checks it over generated sequences of creates, changes, deletes, sessions and re-dispatches.
 */
import type { DigitalHumanCreate, DigitalHumanUpdate } from "@dhs/client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DIGITAL_HUMANS, expectApiError, expectData, KEYS, listed, useHarness } from "../support/harness.js";

const h = useHarness({ SESSION_MAX_DURATION_S: "1200" });
const [AVA, LEO] = DIGITAL_HUMANS;
const DEFAULT_GREETING = "Hello {participant_identity}! I'm {name}. It's good to meet you. Say something, and I will listen.";

/** The job metadata of the room's first dispatch (CreateRoom's agent) and of every dispatch made again. */
function jobsOf(room: string): { agentName: string; job: Record<string, any> }[] {
  const created = h.livekit.callsOf("CreateRoom").filter((call) => call.body.name === room);
  const again = h.livekit.callsOf("CreateDispatch").filter((call) => call.body.room === room);
  return [
    ...created.map((call) => ({ agentName: call.body.agents[0].agentName, job: JSON.parse(call.body.agents[0].metadata) })),
    ...again.map((call) => ({ agentName: call.body.agentName, job: JSON.parse(call.body.metadata) })),
  ];
}

/** Dispatches the session's digital human again, as the sweeper does once LiveKit shows it no job. */
async function redispatch(session: { id: string; room_name: string }, accountId = "acct_a"): Promise<void> {
  h.livekit.endJobs(session.room_name);
  await h.composed.sessions.onTimer({ accountId, sessionId: session.id, timer: "dispatch_check", claimedUntil: Date.now() + 30_000 });
}

const personaOf = (dh: {
  id: string;
  name: string;
  appearance: string;
  instructions: string | null;
  greeting: string | null;
  voice: string;
  language: string;
  llm: unknown;
  tools: unknown;
}) => ({
  id: dh.id,
  name: dh.name,
  appearance: dh.appearance,
  instructions: dh.instructions,
  greeting: dh.greeting,
  voice: dh.voice,
  language: dh.language,
  llm: dh.llm,
  tools: dh.tools,
});

describe("a session of one of the account's own digital humans", () => {
  it("dispatches its appearance's worker with its whole persona and its own maximum duration", async () => {
    const body: DigitalHumanCreate = {
      name: "Maya",
      appearance: LEO.id,
      instructions: "You are Maya.",
      greeting: "Hi {participant_identity}, {name} here.",
      voice: "espeak-en-us",
      llm: { model: "gpt-4o-mini", temperature: 0.2 },
      max_session_duration_s: 90,
    };
    const maya = expectData(await h.client(KEYS.aPersonas).createDigitalHuman(body), 201);
    const session = expectData(await h.client().createSession({ digital_human_id: maya.id, participant_identity: "ada" }), 201);
    expect(jobsOf(session.room_name)).toEqual([
      {
        agentName: "leo-agent",
        job: {
          session_id: session.id,
          account_id: "acct_a",
          digital_human: personaOf(maya),
          participant_identity: "ada",
          max_duration_s: 90,
        },
      },
    ]);
    // getSession shows the eight fields of the specification, no more; the list item names the digital human.
    expect(Object.keys(expectData(await h.client().getSession(session.id))).sort()).toEqual(
      ["created_at", "ended_at", "id", "participant_token", "room_name", "rtc_url", "started_at", "status"].sort(),
    );
    expect((await listed(h)).find((item) => item.id === session.id)?.digital_human_id).toBe(maya.id);
  });

  it("gives a stock one's session the catalog's persona, and the default one to a session that names none", async () => {
    const session = expectData(await h.client().createSession({ participant_identity: "bo" }), 201);
    expect(jobsOf(session.room_name)[0]?.job.digital_human).toEqual({
      id: AVA.id,
      name: "Ava",
      appearance: AVA.id,
      instructions: null,
      greeting: DEFAULT_GREETING,
      voice: "slt",
      language: "en",
      llm: { model: null, temperature: null },
      tools: [],
    });
    expect(jobsOf(session.room_name)[0]?.job.max_duration_s).toBe(1200);
  });

  it("answers another account's, the other mode's and a deleted one exactly as one that does not exist", async () => {
    const theirs = expectData(await h.client(KEYS.bPersonas).createDigitalHuman({ name: "Theirs" }), 201);
    const tests = expectData(await h.client(KEYS.aTest).createDigitalHuman({ name: "Test's" }), 201);
    const gone = expectData(await h.client(KEYS.aPersonas).createDigitalHuman({ name: "Gone" }), 201);
    await h.client(KEYS.aPersonas).deleteDigitalHuman(gone.id);
    const unknown = "00000000-0000-4000-8000-000000000000";
    const answers = [];
    for (const id of [theirs.id, tests.id, gone.id, unknown]) {
      const error = await expectApiError(await h.client().createSession({ digital_human_id: id }), 422, "digital_human_not_found");
      answers.push(error.detail);
    }
    expect(answers).toEqual([theirs.id, tests.id, gone.id, unknown].map((id) => `No digital human ${id}.`));
    // The test mode's own serves its test sessions.
    expect((await h.client(KEYS.aTest).createSession({ digital_human_id: tests.id })).response.status).toBe(201);
  });

  it("still answers a replay of its create after the digital human was deleted: the session it made", async () => {
    const dh = expectData(await h.client(KEYS.aPersonas).createDigitalHuman({ name: "Brief" }), 201);
    const key = crypto.randomUUID();
    const first = expectData(await h.client().createSession({ digital_human_id: dh.id }, { idempotencyKey: key }), 201);
    await h.client(KEYS.aPersonas).deleteDigitalHuman(dh.id);
    const replay = await h.client().createSession({ digital_human_id: dh.id }, { idempotencyKey: key });
    expect(replay.response.headers.get("Idempotent-Replayed")).toBe("true");
    expect(expectData(replay, 201).id).toBe(first.id);
    // A new key is a new create, of a digital human that is gone; the failed key is left usable.
    await expectApiError(await h.client().createSession({ digital_human_id: dh.id }), 422, "digital_human_not_found");
  });

  it("counts the sessions created by digital human in the day's usage", async () => {
    const dh = expectData(await h.client(KEYS.aPersonas).createDigitalHuman({ name: "Counted" }), 201);
    for (let i = 0; i < 2; i++) expectData(await h.client().createSession({ digital_human_id: dh.id }), 201);
    const usage = expectData(await h.client().getUsage());
    expect(usage.totals.sessions_created_by_digital_human[dh.id]).toBe(2);
    expect(usage.totals.sessions_created_by_digital_human[AVA.id]).toBeGreaterThan(0);
  });
});

/** What the model knows of a digital human: the persona a session made now would get. */
type Persona = ReturnType<typeof personaOf>;

describe("a session's persona, over generated sequences of changes to its digital human (model-based)", () => {
  it("is the persona at its create, at its first dispatch and every dispatch after, whatever changed or was deleted since", async () => {
    const patch = fc.record(
      {
        name: fc.constantFrom("Ann", "Bob", "Cy"),
        greeting: fc.constantFrom(null, "Hi {participant_identity}.", "Hello."),
        instructions: fc.constantFrom(null, "Be brief.", "Speak slowly.\nBe kind."),
        voice: fc.constantFrom("slt", "rms", "espeak-en-us"),
        appearance: fc.constantFrom(AVA.id, LEO.id),
        llm: fc.record({ model: fc.constantFrom(null, "m1", "m2"), temperature: fc.constantFrom(null, 0.5) }),
      },
      { requiredKeys: [] },
    );
    type Command =
      | { kind: "create"; body: DigitalHumanCreate }
      | { kind: "update"; which: number; body: DigitalHumanUpdate }
      | { kind: "delete"; which: number }
      | { kind: "session"; which: number }
      | { kind: "redispatch"; which: number };
    const command: fc.Arbitrary<Command> = fc.oneof(
      patch.map((body) => ({ kind: "create" as const, body: { ...body, name: body.name ?? "New" } })),
      fc.record({ kind: fc.constant("update" as const), which: fc.nat(), body: patch.filter((p) => Object.keys(p).length > 0) }),
      fc.record({ kind: fc.constant("delete" as const), which: fc.nat() }),
      fc.record({ kind: fc.constant("session" as const), which: fc.nat() }),
      fc.record({ kind: fc.constant("redispatch" as const), which: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 12 }), async (commands) => {
        const alive = new Map<string, Persona>();
        const sessions: { id: string; room_name: string; persona: Persona }[] = [];
        const pick = <T>(list: readonly T[], which: number): T | undefined => list[which % Math.max(1, list.length)];
        for (const c of commands) {
          if (c.kind === "create") {
            const dh = expectData(await h.client(KEYS.aPersonas).createDigitalHuman(c.body), 201);
            alive.set(dh.id, personaOf(dh));
          } else if (c.kind === "update" || c.kind === "delete") {
            const id = pick([...alive.keys()], c.which);
            if (id === undefined) continue;
            if (c.kind === "delete") {
              expectData(await h.client(KEYS.aPersonas).deleteDigitalHuman(id));
              alive.delete(id);
            } else {
              alive.set(id, personaOf(expectData(await h.client(KEYS.aPersonas).updateDigitalHuman(id, c.body))));
            }
          } else if (c.kind === "session") {
            const id = pick([...alive.keys()], c.which);
            if (id === undefined) continue;
            const session = expectData(await h.client().createSession({ digital_human_id: id }), 201);
            sessions.push({ id: session.id, room_name: session.room_name, persona: alive.get(id) as Persona });
          } else {
            const session = pick(sessions, c.which);
            if (session) await redispatch(session);
          }
          // The reference: every dispatch of every session carried the persona it was created with.
          for (const session of sessions) {
            for (const dispatched of jobsOf(session.room_name)) expect(dispatched.job.digital_human).toEqual(session.persona);
          }
        }
        for (const id of alive.keys()) await h.client(KEYS.aPersonas).deleteDigitalHuman(id);
      }),
      { numRuns: 25 },
    );
  });
});
