/**
 * Digital humans as an account sees them (contract guide, "Digital humans"): the deployment's stock ones
 * it may use, and its own, made, read, listed, changed and deleted through the API, each apart by account
 * and by mode; stock ones read-only; and every refusal named by its field.
 */
import type { DigitalHumanCreate } from "@dhs/client";
import { describe, expect, it } from "vitest";
import { DIGITAL_HUMANS, expectApiError, expectData, KEYS, useHarness } from "../support/harness.js";

const BEA = {
  id: "2c4e6a8b-1d3f-4b5d-9e7f-a1b2c3d4e5f6",
  name: "Bea",
  agent_name: "bea",
  description: "Only for account B",
  accounts: ["acct_b"],
  greeting: null,
  instructions: "You are Bea.",
  voice: "espeak-en-us",
  llm_model: "llama3.1:8b",
  max_session_duration_s: 600,
};
const h = useHarness(
  { ACCOUNT_MAX_DIGITAL_HUMANS: "4", SESSION_MAX_DURATION_S: "1200", TEST_SESSION_MAX_DURATION_S: "300" },
  {},
  { digitalHumans: [BEA] },
);
const [AVA, LEO] = DIGITAL_HUMANS;

const MAYA: DigitalHumanCreate = {
  name: "Maya",
  description: "Hotel concierge",
  instructions: "You are Maya.\nAnswer in one sentence.",
  greeting: "Welcome, {participant_identity}! I'm {name}.",
  voice: "espeak-en-us",
  llm: { model: "gpt-4o-mini", temperature: 0.6 },
  max_session_duration_s: 900,
  metadata: { team: "bookings" },
};

const create = async (body: DigitalHumanCreate, key: string = KEYS.aPersonas, idempotencyKey = crypto.randomUUID()) =>
  h.client(key).createDigitalHuman(body, { idempotencyKey });
const made = async (body: DigitalHumanCreate, key: string = KEYS.aPersonas) => expectData(await create(body, key), 201);
const remove = async (id: string, key: string = KEYS.aPersonas) => h.client(key).deleteDigitalHuman(id);

describe("POST /v1/digital-humans", () => {
  it("makes one of the account's own with every field it was given, and the deployment's defaults for the rest", async () => {
    const maya = await made(MAYA);
    expect(maya).toEqual({
      ...MAYA,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      kind: "custom",
      default: false,
      appearance: AVA.id,
      language: "en",
      tools: [],
      knowledge: { document_ids: [] },
      analysis: null,
      memory: { enabled: false },
      recording: { audio: false },
      created_at: expect.any(String),
      updated_at: maya.created_at,
    });
    const sam = await made({ name: "Sam" });
    expect(sam).toMatchObject({
      name: "Sam",
      description: null,
      appearance: AVA.id,
      instructions: null,
      greeting: "Hello {participant_identity}! I'm {name}. It's good to meet you. Say something, and I will listen.",
      voice: "slt",
      language: "en",
      llm: { model: null, temperature: null },
      max_session_duration_s: null,
      metadata: {},
    });
    expect(expectData(await h.client(KEYS.aPersonasRead).getDigitalHuman(maya.id))).toEqual(maya);
    await Promise.all([remove(maya.id), remove(sam.id)]);
  });

  it("takes a language alone with its default voice, an appearance of a stock one, and null for what may be null", async () => {
    const leo = await made({ name: "Leo's twin", appearance: LEO.id.toUpperCase(), language: "en", greeting: null, description: null });
    expect(leo).toMatchObject({ appearance: LEO.id, voice: "slt", language: "en", greeting: null, description: null });
    await remove(leo.id);
  });

  it("replays the same key and body with the same digital human, and refuses the key with another body", async () => {
    const key = crypto.randomUUID();
    const first = await create({ name: "Once" }, KEYS.aPersonas, key);
    expect(first.response.status).toBe(201);
    expect(first.response.headers.get("Idempotent-Replayed")).toBeNull();
    const again = await create({ name: "Once" }, KEYS.aPersonas, key);
    expect(again.response.headers.get("Idempotent-Replayed")).toBe("true");
    expect(expectData(again, 201)).toEqual(expectData(first, 201));
    await expectApiError(await create({ name: "Twice" }, KEYS.aPersonas, key), 409, "idempotency_key_reused");
    // Another account's same key is another key.
    const other = expectData(await create({ name: "Once" }, KEYS.bPersonas, key), 201);
    expect(other.id).not.toBe(expectData(first, 201).id);
    await remove(other.id, KEYS.bPersonas);
    // Replayed after it was deleted: 404, never a second one.
    await remove(expectData(first, 201).id);
    await expectApiError(await create({ name: "Once" }, KEYS.aPersonas, key), 404, "not_found");
  });

  it("refuses, naming the field, a voice, language or appearance the deployment does not offer and a duration past the account's", async () => {
    const refused = async (body: DigitalHumanCreate, path: string, message: RegExp) => {
      const error = await expectApiError(await create(body), 422, "validation_failed");
      expect(error.detail).toEqual([{ location: "body", path, message: expect.stringMatching(message) }]);
    };
    await refused({ name: "V", voice: "nope" }, "voice", /not a voice of this deployment \(listVoices\): slt, rms/);
    await refused({ name: "L", language: "ja" }, "language", /not a language of this deployment: en, es, fr, de, pt, it/);
    await refused({ name: "L", voice: "slt", language: "de" }, "voice", /voice slt speaks en, not de/);
    // eSpeak speaks French, but the offline default hears English only: refused, saying why.
    await refused({ name: "L", language: "fr" }, "language", /not a language this deployment hears: en \(PocketSphinx, offline/);
    await refused({ name: "L", voice: "espeak-fr" }, "language", /not a language this deployment hears/);
    await refused({ name: "A", appearance: "00000000-0000-4000-8000-000000000000" }, "appearance", /not a stock digital human/);
    // Another account's stock one is not one this account may use.
    await refused({ name: "A", appearance: BEA.id }, "appearance", /not a stock digital human/);
    await refused({ name: "D", max_session_duration_s: 1201 }, "max_session_duration_s", /more than your account's limit of 1200 s/);
    expect((await made({ name: "D", max_session_duration_s: 1200 })).max_session_duration_s).toBe(1200);
    for (const dh of expectData(await h.client(KEYS.aPersonas).listDigitalHumans({ kind: "custom" })).data) await remove(dh.id);
  });

  it.each([
    ["an unknown field", { name: "X", colour: "blue" }, "colour"],
    ["no name", { description: "nameless" }, "name"],
    ["a name of 101 characters", { name: "x".repeat(101) }, "name"],
    ["a control character in the name", { name: "Ma\u0007ya" }, "name"],
    ["an ANSI escape in the greeting", { name: "X", greeting: "Hi \u001b[31m" }, "greeting"],
    ["instructions of 10 001 characters", { name: "X", instructions: "i".repeat(10_001) }, "instructions"],
    ["a temperature of 3", { name: "X", llm: { temperature: 3 } }, "llm"],
    ["a model name with a space", { name: "X", llm: { model: "gpt 4" } }, "llm"],
    ["51 metadata keys", { name: "X", metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) }, "metadata"],
  ])("refuses %s with 422 validation_failed naming it", async (_case, body, field) => {
    const error = await expectApiError(await create(body as DigitalHumanCreate), 422, "validation_failed");
    expect(JSON.stringify(error.detail)).toContain(field);
  });

  it("keeps the number of an account's own to its limit, in each mode apart, and frees a place on a delete", async () => {
    const mine = await Promise.all([1, 2, 3, 4].map((i) => made({ name: `N${i}` })));
    const error = await expectApiError(await create({ name: "N5" }), 422, "digital_human_limit_reached");
    expect(error.detail).toEqual({ limit: 4 });
    // The test mode's own are counted apart, as another account's are.
    const test = await made({ name: "T" }, KEYS.aTest);
    const other = await made({ name: "B" }, KEYS.bPersonas);
    await remove(mine[0]?.id as string);
    const fifth = await made({ name: "N5" });
    for (const dh of [...mine.slice(1), fifth]) await remove(dh.id);
    await remove(test.id, KEYS.aTest);
    await remove(other.id, KEYS.bPersonas);
  });

  it("takes no more at the limit even when many creates arrive at once", async () => {
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create({ name: `P${i}` })));
    expect(results.filter((r) => r.response.status === 201)).toHaveLength(4);
    expect(results.filter((r) => r.response.status === 422)).toHaveLength(6);
    for (const r of results) if (r.data) await remove(r.data.id);
  });

  it("gives one Idempotency-Key one outcome with one place left: 12 creates at once with it make one, replayed honestly", async () => {
    const others = await Promise.all([1, 2, 3].map((i) => made({ name: `Held${i}` })));
    for (let round = 0; round < 5; round++) {
      const key = crypto.randomUUID();
      const results = await Promise.all(Array.from({ length: 12 }, () => create({ name: "Last" }, KEYS.aPersonas, key)));
      const statuses = results.map((r) => r.response.status);
      // Made once; the others were told it is still running, or replayed it: never the limit, never another.
      expect(
        statuses.filter((s) => s !== 201 && s !== 409),
        `round ${round}: ${statuses}`,
      ).toEqual([]);
      for (const r of results) if (r.response.status === 409) expect(r.error).toMatchObject({ code: "idempotency_request_in_progress" });
      const made = results.filter((r) => r.response.status === 201);
      expect(made.filter((r) => r.response.headers.get("Idempotent-Replayed") !== "true")).toHaveLength(1);
      expect(new Set(made.map((r) => r.data?.id)).size).toBe(1);
      const again = await create({ name: "Last" }, KEYS.aPersonas, key);
      expect([again.response.status, again.response.headers.get("Idempotent-Replayed"), again.data?.id]).toEqual([
        201,
        "true",
        made[0]?.data?.id,
      ]);
      await remove(made[0]?.data?.id as string);
    }
    for (const dh of others) await remove(dh.id);
  });

  it("needs digital_humans:write: a key with sessions:write is refused 403 naming the scope", async () => {
    const error = await expectApiError(await create({ name: "X" }, KEYS.a), 403, "forbidden");
    expect(error.detail).toEqual({ missing_scope: "digital_humans:write" });
    await expectApiError(await create({ name: "X" }, KEYS.aPersonasRead), 403, "forbidden");
  });
});

describe("GET /v1/digital-humans", () => {
  it("lists the account's own newest first, then the stock ones it may use in the catalog's order, the first stock one default", async () => {
    const first = await made({ name: "First" });
    const second = await made({ name: "Second" });
    const all = expectData(await h.client(KEYS.aPersonasRead).listDigitalHumans());
    expect(all.data.map((d) => [d.name, d.kind, d.default])).toEqual([
      ["Second", "custom", false],
      ["First", "custom", false],
      ["Ava", "stock", true],
      ["Leo", "stock", false],
    ]);
    expect(all.data[2]).toEqual({
      id: AVA.id,
      kind: "stock",
      name: "Ava",
      description: null,
      default: true,
      appearance: AVA.id,
      instructions: null,
      greeting: "Hello {participant_identity}! I'm {name}. It's good to meet you. Say something, and I will listen.",
      voice: "slt",
      language: "en",
      llm: { model: null, temperature: null },
      max_session_duration_s: null,
      metadata: {},
      tools: [],
      knowledge: { document_ids: [] },
      analysis: null,
      memory: { enabled: false },
      recording: { audio: false },
      created_at: null,
      updated_at: null,
    });
    // kind keeps one of the two.
    expect(expectData(await h.client(KEYS.a).listDigitalHumans({ kind: "stock" })).data.map((d) => d.name)).toEqual(["Ava", "Leo"]);
    expect(expectData(await h.client(KEYS.a).listDigitalHumans({ kind: "custom" })).data.map((d) => d.name)).toEqual(["Second", "First"]);
    await remove(first.id);
    await remove(second.id);
  });

  it("pages one at a time across the account's own and the stock ones, each listed once", async () => {
    const own = [await made({ name: "One" }), await made({ name: "Two" })];
    const names: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = expectData(await h.client(KEYS.a).listDigitalHumans({ limit: 1, ...(cursor ? { cursor } : {}) }));
      names.push(...page.data.map((d) => d.name));
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
    }
    expect(names).toEqual(["Two", "One", "Ava", "Leo"]);
    for (const dh of own) await remove(dh.id);
  });

  it("shows another account's stock ones and its own to it alone, and a stock one's persona as the catalog gives it", async () => {
    const bs = await made({ name: "B's own" }, KEYS.bPersonas);
    const b = expectData(await h.client(KEYS.b).listDigitalHumans()).data;
    expect(b.map((d) => d.name)).toEqual(["B's own", "Ava", "Leo", "Bea"]);
    expect(b.find((d) => d.name === "Bea")).toMatchObject({
      kind: "stock",
      description: "Only for account B",
      greeting: null,
      instructions: "You are Bea.",
      voice: "espeak-en-us",
      llm: { model: "llama3.1:8b", temperature: null },
      max_session_duration_s: 600,
    });
    expect(expectData(await h.client(KEYS.a).listDigitalHumans()).data.map((d) => d.name)).toEqual(["Ava", "Leo"]);
    await remove(bs.id, KEYS.bPersonas);
  });

  it("refuses a cursor it did not issue, and one of another list", async () => {
    await expectApiError(await h.client(KEYS.b).listDigitalHumans({ cursor: "nope" }), 422, "validation_failed");
    const sessionsCursor = Buffer.from(JSON.stringify([Date.now(), AVA.id])).toString("base64url");
    await expectApiError(await h.client(KEYS.b).listDigitalHumans({ cursor: sessionsCursor }), 422, "validation_failed");
  });

  it("takes sessions:read or digital_humans:read, and refuses a key with neither", async () => {
    expect((await h.client(KEYS.aRead).listDigitalHumans()).response.status).toBe(200);
    expect((await h.client(KEYS.aPersonasRead).listDigitalHumans()).response.status).toBe(200);
    const error = await expectApiError(await h.client(KEYS.aWrite).listDigitalHumans(), 403, "forbidden");
    expect(error.detail).toEqual({ missing_scope: "digital_humans:read" });
  });
});

describe("GET /v1/digital-humans/{id}", () => {
  it("answers a stock one or one of the account's own; another account's, the other mode's, unknown and malformed ids alike 404", async () => {
    const mine = await made({ name: "Mine" });
    const test = await made({ name: "Test's" }, KEYS.aTest);
    expect(expectData(await h.client(KEYS.aRead).getDigitalHuman(LEO.id.toUpperCase()))).toMatchObject({ id: LEO.id, kind: "stock" });
    expect(expectData(await h.client(KEYS.aRead).getDigitalHuman(mine.id.toUpperCase()))).toEqual(mine);
    const unknown = "00000000-0000-4000-8000-000000000000";
    const answers = [];
    for (const [key, id] of [
      [KEYS.aRead, BEA.id],
      [KEYS.b, mine.id],
      [KEYS.aRead, test.id],
      [KEYS.aTest, mine.id],
      [KEYS.aRead, unknown],
      [KEYS.aRead, "not-a-uuid"],
    ] as const) {
      const error = await expectApiError(await h.client(key).getDigitalHuman(id), 404, "not_found");
      answers.push(error.detail);
    }
    // The detail names the id asked for and nothing else: another account's reads as an unknown one.
    expect(answers.slice(0, 5)).toEqual([BEA.id, mine.id, test.id, mine.id, unknown].map((id) => `No digital human ${id}.`));
    await remove(mine.id);
    await remove(test.id, KEYS.aTest);
  });
});

describe("PATCH /v1/digital-humans/{id}", () => {
  it("changes the fields sent, keeps the others, clears with null, replaces llm and metadata whole", async () => {
    const maya = await made(MAYA);
    const changed = expectData(
      await h.client(KEYS.aPersonas).updateDigitalHuman(maya.id, { greeting: null, llm: { model: "llama3.1:8b" }, metadata: { a: "1" } }),
    );
    expect(changed).toEqual({
      ...maya,
      greeting: null,
      llm: { model: "llama3.1:8b", temperature: null },
      metadata: { a: "1" },
      updated_at: expect.any(String),
    });
    expect(Date.parse(changed.updated_at as string)).toBeGreaterThanOrEqual(Date.parse(maya.updated_at as string));
    // The same change again answers the same digital human (safe to retry).
    const again = expectData(await h.client(KEYS.aPersonas).updateDigitalHuman(maya.id, { greeting: null }));
    expect({ ...again, updated_at: "" }).toEqual({ ...changed, updated_at: "" });
    // A new voice alone brings its language; a new name keeps the {name} placeholder meaning the new one.
    const renamed = expectData(await h.client(KEYS.aPersonas).updateDigitalHuman(maya.id, { name: "Mia", voice: "slt" }));
    expect(renamed).toMatchObject({ name: "Mia", voice: "slt", language: "en", instructions: MAYA.instructions });
    await remove(maya.id);
  });

  it("refuses what the deployment does not offer, naming the field, and changes nothing then", async () => {
    const maya = await made(MAYA);
    const error = await expectApiError(
      await h.client(KEYS.aPersonas).updateDigitalHuman(maya.id, { voice: "nope", max_session_duration_s: 5000 }),
      422,
      "validation_failed",
    );
    expect(error.detail.map((issue: { path: string }) => issue.path).sort()).toEqual(["max_session_duration_s", "voice"]);
    await expectApiError(await h.client(KEYS.aPersonas).updateDigitalHuman(maya.id, {}), 422, "validation_failed");
    await expectApiError(await h.client(KEYS.aPersonas).updateDigitalHuman(maya.id, { id: "x" } as never), 422, "validation_failed");
    expect(expectData(await h.client(KEYS.aPersonas).getDigitalHuman(maya.id))).toEqual(maya);
    await remove(maya.id);
  });

  it("answers 409 digital_human_read_only for a stock one, and 404 for another account's or the other mode's", async () => {
    const error = await expectApiError(
      await h.client(KEYS.aPersonas).updateDigitalHuman(AVA.id, { name: "Eve" }),
      409,
      "digital_human_read_only",
    );
    expect(error.detail).toMatch(/stock one/);
    const mine = await made({ name: "Mine" });
    await expectApiError(await h.client(KEYS.bPersonas).updateDigitalHuman(mine.id, { name: "Theirs" }), 404, "not_found");
    await expectApiError(await h.client(KEYS.aTest).updateDigitalHuman(mine.id, { name: "Test's" }), 404, "not_found");
    // Another account's stock one is not found either: it is not one this account may use.
    await expectApiError(await h.client(KEYS.aPersonas).updateDigitalHuman(BEA.id, { name: "Bee" }), 404, "not_found");
    expect(expectData(await h.client(KEYS.aPersonas).getDigitalHuman(mine.id)).name).toBe("Mine");
    await remove(mine.id);
  });

  it("loses no change when many arrive at once: each is merged into the one before", async () => {
    const maya = await made({ name: "Maya", metadata: {} });
    const fields = ["description", "greeting", "instructions"] as const;
    await Promise.all(fields.map((field) => h.client(KEYS.aPersonas).updateDigitalHuman(maya.id, { [field]: `${field} set` })));
    expect(expectData(await h.client(KEYS.aPersonas).getDigitalHuman(maya.id))).toMatchObject({
      description: "description set",
      greeting: "greeting set",
      instructions: "instructions set",
    });
    await remove(maya.id);
  });
});

describe("DELETE /v1/digital-humans/{id}", () => {
  it("deletes one of the account's own once; then it is not found; a stock one is read-only", async () => {
    const mine = await made({ name: "Gone" });
    await expectApiError(await remove(mine.id, KEYS.b), 403, "forbidden");
    await expectApiError(await remove(mine.id, KEYS.bPersonas), 404, "not_found");
    expect(expectData(await remove(mine.id))).toEqual({ id: mine.id, deleted: true });
    await expectApiError(await remove(mine.id), 404, "not_found");
    await expectApiError(await h.client(KEYS.aPersonas).getDigitalHuman(mine.id), 404, "not_found");
    await expectApiError(await remove(AVA.id), 409, "digital_human_read_only");
  });
});

describe("GET /v1/voices", () => {
  it("lists the deployment's voices, the default first, with sessions:read or digital_humans:read", async () => {
    const voices = expectData(await h.client(KEYS.aRead).listVoices()).data;
    expect(voices.map((v) => [v.id, v.language, v.default])).toEqual([
      ["slt", "en", true],
      ["rms", "en", false],
      ["awb", "en", false],
      ["kal", "en", false],
      ["espeak-en-us", "en", false],
      ["espeak-es", "es", false],
      ["espeak-fr", "fr", false],
      ["espeak-de", "de", false],
      ["espeak-pt", "pt", false],
      ["espeak-it", "it", false],
    ]);
    // Who speaks each: the offline engines, by their own names.
    expect(voices.slice(3, 6).map((v) => [v.provider, v.provider_voice, v.model])).toEqual([
      ["flite", "kal16", null],
      ["espeak", "en-us", null],
      ["espeak", "es", null],
    ]);
    expect((await h.client(KEYS.aPersonasRead).listVoices()).response.status).toBe(200);
    await expectApiError(await h.client(KEYS.aHooks).listVoices(), 403, "forbidden");
  });
});
