/**
 * `pnpm demo`: the whole product on one machine. LiveKit (dev keys, loopback, room auto-create off,
 * webhooks to the service), the service (in memory unless REDIS_URL and DATABASE_URL are set), the digital human worker and
 * the demo page, started in that order, each once the one before is ready; the page's address is printed
 * only when the worker has registered with LiveKit, so a Join clicked at once gets its digital human.
 * Ctrl-C or SIGTERM stops them all.
 *
 *   DEMO_PORT (3000)  PORT (the service, 8080)  LIVEKIT_PORT (7880; its media use the next two ports)
 *   REDIS_URL and DATABASE_URL (unset: everything in memory)  DEMO_RECORDING (on or off: whether the concierge records her
 *   sessions; unset: as she was last set)  and any of the service's variables, passed on to it.
 */
import { execFileSync } from "node:child_process";
import { accessSync, constants, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PocketSphinxTranscriber } from "@dhs/digital-human/pocketsphinx-transcriber";
import { freePort } from "@dhs/testkit";
import { ChildProcesses } from "./child-processes.js";
import { liveKitConfigYaml } from "./livekit-config.js";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const LIVEKIT_KEY = "devkey";
const LIVEKIT_SECRET = "secret";
const DEV_API_KEY = "dhs_dev_insecure_local_key";

class LaunchError extends Error {}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function portOf(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new LaunchError(`${name} must be a port from 1 to 65535 (got "${raw}")`);
  return port;
}

/** Resolves when nothing listens on the port yet: a clear refusal beats a child failing later. */
function ensureFree(port: number, what: string, variable: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", () => reject(new LaunchError(`port ${port} (${what}) is in use: stop what uses it or set ${variable}`)));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
}

/** The program's path on PATH, or undefined. */
function onPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** livekit-server from PATH, else the build cached by scripts/livekit-server.sh (built there the first time). */
function findLiveKitServer(): string {
  const found = onPath("livekit-server");
  if (found) return found;
  try {
    // Its progress ("building ... takes a few minutes") goes to the terminal.
    return execFileSync("bash", [join(ROOT, "scripts/livekit-server.sh")], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim();
  } catch {
    throw new LaunchError("no livekit-server to run (see above)");
  }
}

/**
 * The digital human's ears and voice (PocketSphinx, Flite), installed from Debian's packages when missing
 * and this user may (root, or sudo without a password): the quick start's first command is the whole
 * set-up. Where it may not, the demo goes on and says what is missing.
 */
function installSpeech(): void {
  try {
    execFileSync("bash", [join(ROOT, "scripts/speech.sh")], { stdio: ["ignore", "inherit", "inherit"] });
  } catch {
    // speech.sh said what to install; the worker says what it does without.
  }
}

async function main(): Promise<void> {
  const demoPort = portOf("DEMO_PORT", 3000);
  const apiPort = portOf("PORT", 8080);
  const livekitPort = portOf("LIVEKIT_PORT", 7880);
  await ensureFree(demoPort, "the demo page", "DEMO_PORT");
  await ensureFree(apiPort, "the service", "PORT");
  for (const port of [livekitPort, livekitPort + 1, livekitPort + 2]) await ensureFree(port, "LiveKit", "LIVEKIT_PORT");

  const livekitServer = findLiveKitServer();
  installSpeech();
  const dir = mkdtempSync(join(tmpdir(), "dhs-demo-"));
  const processes = new ChildProcesses(dir);
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const livekitUrl = `ws://127.0.0.1:${livekitPort}`;
  const livekitEnv = { LIVEKIT_URL: livekitUrl, LIVEKIT_API_KEY: LIVEKIT_KEY, LIVEKIT_API_SECRET: LIVEKIT_SECRET };

  let stopping: Promise<void> | undefined;
  const stop = (code: number) => {
    stopping ??= processes.stopAll().then(() => process.exit(code));
    return stopping;
  };
  process.once("SIGINT", () => void stop(0));
  process.once("SIGTERM", () => void stop(0));
  // Whatever ran us (pnpm, a terminal) going away stops the demo too: nothing is left behind.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && void stop(0), 1000).unref();

  try {
    const config = join(dir, "livekit.yaml");
    writeFileSync(
      config,
      liveKitConfigYaml({
        port: livekitPort,
        rtcTcpPort: livekitPort + 1,
        udp: { port: livekitPort + 2 },
        keys: { [LIVEKIT_KEY]: LIVEKIT_SECRET },
        webhookApiKey: LIVEKIT_KEY,
        webhookUrl: `${apiUrl}/livekit/webhook`,
      }),
    );
    say(`starting LiveKit on ${livekitUrl}`);
    await processes.start("livekit", livekitServer, ["--config", config], process.env, /starting LiveKit server/, 60_000);

    say(`starting the service on ${apiUrl}${process.env.REDIS_URL ? " (on Redis and PostgreSQL)" : " (in memory)"}`);
    await processes.start(
      "service",
      process.execPath,
      [join(ROOT, "apps/server/dist/main.js")],
      {
        // A backend of one's own on this machine (docs/backend.md, "Bring your own brain") takes the webhooks on localhost.
        WEBHOOK_ALLOW_PRIVATE_URLS: "true",
        ...process.env,
        ...livekitEnv,
        HOST: "127.0.0.1",
        PORT: String(apiPort),
        METRICS_PORT: process.env.METRICS_PORT ?? "0",
      },
      /"msg":"listening"/,
      60_000,
    );

    say("starting the digital human worker (it loads its voice and its listening model)");
    // The worker reads the OpenAI SDK's own variables (docs/digital-human.md, "Its LLM"), passed on as they are.
    const llmUrl = process.env.OPENAI_BASE_URL?.trim();
    // Its ears and voices are the worker's settings (DHS_STT_*, DHS_TTS_*: docs/operators.md), passed on as they are.
    const sttProvider = process.env.DHS_STT_PROVIDER?.trim() || "pocketsphinx";
    const recognizer = sttProvider === "pocketsphinx" ? PocketSphinxTranscriber.find() : undefined;
    if (recognizer === undefined)
      say(`  its ears: ${sttProvider} (DHS_STT_PROVIDER) at ${process.env.DHS_STT_BASE_URL?.trim() || "the provider's own address"}`);
    const voiceProviders = [
      ["openai", "DHS_TTS_OPENAI_BASE_URL", "DHS_TTS_OPENAI_API_KEY"],
      ["elevenlabs", "DHS_TTS_ELEVENLABS_API_KEY"],
      ["deepgram", "DHS_TTS_DEEPGRAM_API_KEY"],
    ].flatMap(([name, ...variables]) => (variables.some((variable) => process.env[variable as string]?.trim()) ? [name] : []));
    if (voiceProviders.length > 0) say(`  its catalog's voices of ${voiceProviders.join(", ")} are spoken by those providers`);
    if (recognizer && "missing" in recognizer) {
      say("  no speech recognition: captions will show the digital human's lines but not your words;");
      if (llmUrl) say("  and each time you speak, it says it could not make you out (nothing unheard goes to the LLM);");
      say(`  ${recognizer.missing}, or bash scripts/speech.sh`);
    }
    if (llmUrl) {
      const model = process.env.DHS_LLM_MODEL?.trim() || "gpt-4o-mini";
      say(`  its LLM: ${llmUrl} (model ${model} unless the digital human names one); it answers what you say`);
    } else {
      say("  no LLM (OPENAI_BASE_URL is not set): it greets you and acknowledges what you say;");
      say("  to converse: OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-... pnpm demo (or a local server's address)");
    }
    await processes.start(
      "digital-human",
      process.execPath,
      [join(ROOT, "apps/digital-human/dist/worker.js")],
      // DHS_API_URL: where its jobs post each session's transcript.
      {
        ...process.env,
        ...livekitEnv,
        DHS_API_URL: apiUrl,
        AGENT_HTTP_HOST: "127.0.0.1",
        AGENT_HTTP_PORT: String(await freePort()),
        AGENT_METRICS_PORT: process.env.AGENT_METRICS_PORT ?? "0",
      },
      /registered worker/,
      120_000,
    );

    await processes.start(
      "demo-page",
      process.execPath,
      [join(ROOT, "apps/demo/dist/server.js")],
      { ...process.env, DHS_URL: apiUrl, DHS_API_KEY: DEV_API_KEY, PORT: String(demoPort), HOST: "127.0.0.1" },
      /demo listening/,
      30_000,
    );
  } catch (error) {
    say(`demo: ${(error as Error).message}`);
    await processes.stopAll();
    process.exit(1);
  }

  processes.onUnexpectedExit((started, code, signal) => {
    say(`demo: ${started.name} exited (${signal ?? `code ${code}`}); stopping everything. Its log: ${started.log}`);
    void stop(1);
  });
  say("");
  say(`Ready: open http://localhost:${demoPort} and press Join to meet the digital human.`);
  say(`  The API: ${apiUrl} (key ${DEV_API_KEY})   LiveKit: ${livekitUrl}   Logs: ${dir}`);
  say("  Ctrl-C stops everything.");
}

main().catch((error: unknown) => {
  say(`demo: ${error instanceof LaunchError ? error.message : String(error)}`);
  process.exit(1);
});
