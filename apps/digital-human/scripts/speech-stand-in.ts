/**
 * A stand-in of OpenAI's speech API on loopback (`POST /v1/audio/transcriptions`, `POST /v1/audio/speech`),
 * hearing with PocketSphinx and speaking with Flite: the testkit's, for trying the worker's provider
 * settings without an account (docs/operators.md, "Choosing the digital human's ears and voice"), and for
 * the docs tier, which runs that guide as written. Not a speech service: it hears and sounds like the
 * offline engines it runs on.
 *
 *   pnpm --filter @dhs/digital-human speech-stand-in --port 8000
 */
import { startOpenAiSpeechServer } from "@dhs/testkit";
import { offlineEngines } from "../src/providers/offline-speech-engines.js";

const at = process.argv.indexOf("--port");
const port = at === -1 ? 8000 : Number(process.argv[at + 1]);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write("usage: speech-stand-in [--port 8000]\n");
  process.exit(2);
}
const engines = offlineEngines();
const server = await startOpenAiSpeechServer({ engines, port });
process.stdout.write(`speech stand-in listening: ${server.url} (OpenAI's /audio/transcriptions and /audio/speech)\n`);
const stop = async () => {
  await server.close();
  engines.close();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
