/**
 * The demo's own digital human, as a customer's backend would make it: a hotel concierge that answers
 * from the hotel's facts (knowledge/harbour-hotel.md, shipped here), so a newcomer without an LLM can ask
 * "What time is breakfast?" and hear the answer. Made once per start, by Idempotency-Keys that a restart
 * repeats (the service answers what it made the first time); should she not be made, the page offers
 * the stock digital humans alone.
 * `DEMO_RECORDING=on pnpm demo` records her sessions.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { DhsClient } from "@dhs/client";

/** What the page suggests asking the concierge. */
export const SUGGESTED_QUESTIONS = ["What time is breakfast?", "When is check-out?", "How much is parking?", "When is the pool open?"];

const FACTS = readFileSync(fileURLToPath(new URL("../knowledge/harbour-hotel.md", import.meta.url)), "utf8");

export interface Concierge {
  id: string;
  name: string;
  description: string;
}

/** The concierge, made (or found again) on first use; undefined while she cannot be made. */
export function conciergeOf(dhs: DhsClient, log: (line: Record<string, unknown>) => void): () => Promise<Concierge | undefined> {
  let made: Promise<Concierge | undefined> | undefined;
  return () => {
    made ??= make(dhs, log).catch((error: unknown) => {
      // Asked again next time: the service may just have been starting.
      made = undefined;
      log({ msg: "could not make the hotel concierge", error: String(error) });
      return undefined;
    });
    return made;
  };
}

async function make(dhs: DhsClient, log: (line: Record<string, unknown>) => void): Promise<Concierge | undefined> {
  const document = await dhs.createDocument(
    { name: "Harbour Hotel facts", format: "markdown", content: FACTS },
    { idempotencyKey: "demo-harbour-hotel-facts-v1" },
  );
  if (!document.data) throw new Error(`createDocument: ${JSON.stringify(document.error)}`);
  // Offered once she can answer: the facts are indexed in well under a second.
  const id = document.data.id;
  for (let status = document.data.status, tries = 0; status === "processing"; tries++) {
    if (tries === 100) throw new Error("the hotel's facts are still processing after 10 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = (await dhs.getDocument(id)).data?.status ?? "processing";
    if (status === "failed") throw new Error("the hotel's facts could not be processed");
  }
  const human = await dhs.createDigitalHuman(
    {
      name: "Maya",
      description: "Harbour Hotel concierge (answers from the hotel's facts)",
      instructions:
        "You are Maya, the concierge of the Harbour Hotel. Answer guests' questions about the hotel in one or two short spoken sentences, from the hotel's facts you are given. If they do not say, say you will ask the front desk.",
      greeting: "Welcome to the Harbour Hotel, {participant_identity}! I'm Maya. Ask me about breakfast, check-out, parking or the pool.",
      knowledge: { document_ids: [id] },
    },
    { idempotencyKey: "demo-harbour-hotel-concierge-v1" },
  );
  if (!human.data) throw new Error(`createDigitalHuman: ${JSON.stringify(human.error)}`);
  // DEMO_RECORDING=on (or off) sets whether her sessions are recorded (the contract's "Recordings"); unset,
  // she keeps what she was last set to (through the API too). The page says so while she records.
  const recording = process.env.DEMO_RECORDING;
  if (recording === "on" || recording === "off") {
    const set = await dhs.updateDigitalHuman(human.data.id, { recording: { audio: recording === "on" } });
    if (!set.data) throw new Error(`updateDigitalHuman: ${JSON.stringify(set.error)}`);
    log({ msg: `the hotel concierge's sessions are ${recording === "on" ? "" : "not "}recorded (DEMO_RECORDING=${recording})` });
  }
  return { id: human.data.id, name: human.data.name, description: human.data.description ?? "" };
}
