/**
 * A digital human's language (contract guide, "Digital humans"): its voice's, and one the deployment's
 * speech recognition hears (DIGITAL_HUMANS_FILE's `hearing_languages`). Here the operator gave the workers
 * a speech-to-text provider that hears Spanish: a Spanish digital human on an eSpeak voice is taken and
 * its sessions tell the worker its language, while French (spoken, not heard) is still refused; the
 * catalog's provider voices are listed with who speaks them.
 */
import { describe, expect, it } from "vitest";
import { expectApiError, expectData, KEYS, useHarness } from "../support/harness.js";

const VOICES = [
  { id: "slt", name: "SLT", language: "en" },
  { id: "espeak-es", name: "eSpeak Spanish", language: "es", provider: "espeak", provider_voice: "es" },
  { id: "espeak-fr", name: "eSpeak French", language: "fr", provider: "espeak", provider_voice: "fr" },
  {
    id: "lucia",
    name: "Lucía",
    language: "es",
    provider: "elevenlabs",
    provider_voice: "21m00Tcm4TlvDq8ikWAM",
    model: "eleven_flash_v2_5",
  },
];
const h = useHarness({}, {}, { voices: VOICES, hearingLanguages: ["en", "es"] });

const create = (body: Parameters<ReturnType<typeof h.client>["createDigitalHuman"]>[0]) =>
  h.client(KEYS.aPersonas).createDigitalHuman(body);

describe("a deployment whose speech recognition hears English and Spanish", () => {
  it("takes a Spanish digital human, and dispatches its sessions with its language and voice", async () => {
    const sofia = expectData(await create({ name: "Sofía", voice: "espeak-es" }), 201);
    expect(sofia).toMatchObject({ voice: "espeak-es", language: "es" });
    // A language alone brings its first voice; a region of a heard language is heard.
    expect(expectData(await create({ name: "Lola", language: "es" }), 201).voice).toBe("espeak-es");
    const session = expectData(await h.client().createSession({ digital_human_id: sofia.id, participant_identity: "ana" }), 201);
    const room = h.livekit.callsOf("CreateRoom").find((call) => call.body.name === session.room_name);
    expect(JSON.parse(room?.body.agents[0].metadata).digital_human).toMatchObject({ voice: "espeak-es", language: "es" });
  });

  it("refuses a language its voices speak but its speech recognition does not hear, naming what it hears", async () => {
    const error = await expectApiError(await create({ name: "Chloé", voice: "espeak-fr" }), 422, "validation_failed");
    expect(error.detail).toEqual([{ location: "body", path: "language", message: "is not a language this deployment hears: en, es" }]);
    // A change to it is refused alike, and the digital human keeps what it had.
    const ana = expectData(await create({ name: "Ana", voice: "espeak-es" }), 201);
    const update = await h.client(KEYS.aPersonas).updateDigitalHuman(ana.id, { voice: "espeak-fr" });
    expect((await expectApiError(update, 422, "validation_failed")).detail).toMatchObject([{ path: "language" }]);
    expect(expectData(await h.client(KEYS.aPersonas).getDigitalHuman(ana.id))).toMatchObject({ voice: "espeak-es", language: "es" });
  });

  it("lists each voice with who speaks it, the offline ones by their engines' names", async () => {
    const voices = expectData(await h.client(KEYS.aRead).listVoices()).data;
    expect(voices.map((v) => [v.id, v.language, v.provider, v.provider_voice, v.model, v.default])).toEqual([
      ["slt", "en", "flite", "slt", null, true],
      ["espeak-es", "es", "espeak", "es", null, false],
      ["espeak-fr", "fr", "espeak", "fr", null, false],
      ["lucia", "es", "elevenlabs", "21m00Tcm4TlvDq8ikWAM", "eleven_flash_v2_5", false],
    ]);
  });
});
