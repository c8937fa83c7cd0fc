/**
 * The worker's voices (voice-library.ts) for the whole worker: a process of its own that synthesizes for
 * every job over loopback HTTP. A job process then starts without loading eSpeak's 24 MB of data and
 * compiling its WebAssembly (about a second of CPU each, and the agent framework starts job processes one
 * at a time), and eSpeak (GPL-3.0) runs apart from the rest of the worker.
 *
 *   POST /synthesize  {"text": "...", "voice": "slt"}  ->  200, 16-bit little-endian mono PCM, X-Sample-Rate
 *
 * Run as a child of the worker (worker.ts), it tells its parent its address over IPC; the worker passes
 * it the catalog's default voice (DHS_DEFAULT_VOICE).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { agentCatalog } from "@dhs/catalog";
import { workerConfig } from "../worker/worker-config.js";
import { ESpeakVoice } from "./espeak-voice.js";
import { FliteVoice } from "./flite-voice.js";
import type { Voice } from "./voice.js";
import { VoiceLibrary } from "./voice-library.js";

const MAX_TEXT = 2000;

export async function startVoiceServer(voice: Voice): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.method !== "POST" || req.url !== "/synthesize") return void res.writeHead(404).end();
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      raw += chunk;
      if (raw.length > MAX_TEXT * 4) req.destroy();
    });
    req.on("end", () => {
      let asked: { text?: unknown; voice?: unknown } = {};
      try {
        asked = JSON.parse(raw) as typeof asked;
      } catch {
        // answered below
      }
      const { text, voice: name } = asked;
      if (typeof text !== "string" || text.length === 0 || text.length > MAX_TEXT) return void res.writeHead(400).end();
      if (name !== undefined && (typeof name !== "string" || !/^[a-z0-9][a-z0-9_.-]{0,63}$/.test(name)))
        return void res.writeHead(400).end();
      voice.synthesize(text, name).then(
        (speech) => {
          const body = Buffer.from(speech.samples.buffer, speech.samples.byteOffset, speech.samples.byteLength);
          res.writeHead(200, { "Content-Type": "audio/L16", "X-Sample-Rate": String(speech.sampleRate) }).end(body);
        },
        () => res.writeHead(500).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

// As the worker's child: load the voices, serve, say where.
if (process.send && process.argv[1]?.endsWith("voice-server.js")) {
  const flite = FliteVoice.find();
  const engines = { espeak: await ESpeakVoice.load(), flite: "voice" in flite ? flite.voice : undefined };
  const config = workerConfig();
  const library = new VoiceLibrary(
    engines,
    config.DHS_DEFAULT_VOICE,
    (voice, why) =>
      process.stdout.write(`${JSON.stringify({ level: "warn", msg: "voice spoken by an offline voice instead", voice, why })}\n`),
    agentCatalog(config.DIGITAL_HUMANS_FILE).voices,
  );
  const { url } = await startVoiceServer(library);
  process.send({ voiceUrl: url });
  process.on("disconnect", () => process.exit(0));
}
