/**
 * The agent worker: registers with LiveKit once for each agent name in the digital human catalog
 * (DIGITAL_HUMANS_FILE, the server's default catalog otherwise), so a session's explicit dispatch to
 * that name reaches it. LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET default to
 * `livekit-server --dev`'s, like the service's.
 */
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { AgentServer, initializeLogger, ServerOptions } from "@livekit/agents";

const env = process.env;
const catalogFile = env.DIGITAL_HUMANS_FILE ?? fileURLToPath(new URL("../../server/config/digital-humans.json", import.meta.url));
const catalog = JSON.parse(readFileSync(catalogFile, "utf8")) as { digital_humans: { agent_name: string }[] };
const agentNames = [...new Set(catalog.digital_humans.map((d) => d.agent_name))];
const basePort = Number(env.AGENT_HTTP_PORT ?? 8081);
const maxJobs = Number(env.AGENT_MAX_JOBS ?? 20);
// A job process loads its voice and listening model (one to two seconds) before it can take a job; warm
// ones waiting absorb a burst of sessions.
const idleProcesses = Number(env.AGENT_IDLE_PROCESSES ?? 2);

initializeLogger({ pretty: false, level: env.LOG_LEVEL ?? "info" });

// One voice for every job (voice-server.ts); job processes inherit its address through the environment.
const voiceServer = fork(fileURLToPath(new URL("./voice-server.js", import.meta.url)), { stdio: "inherit" });
env.DHS_VOICE_URL = await new Promise<string>((resolve, reject) => {
  voiceServer.once("message", (message: { voiceUrl?: string }) =>
    message.voiceUrl ? resolve(message.voiceUrl) : reject(new Error("no voice")),
  );
  voiceServer.once("exit", (code) => reject(new Error(`the voice server exited (${code}) before it was ready`)));
});

const servers = agentNames.map(
  (agentName, i) =>
    new AgentServer(
      new ServerOptions({
        agent: fileURLToPath(new URL("./agent.js", import.meta.url)),
        agentName,
        wsURL: env.LIVEKIT_URL ?? "ws://localhost:7880",
        apiKey: env.LIVEKIT_API_KEY ?? "devkey",
        apiSecret: env.LIVEKIT_API_SECRET ?? "secret",
        // Each worker serves its own health endpoint.
        port: basePort + i,
        numIdleProcesses: idleProcesses,
        // LiveKit passes over a worker whose load is high. agents-js reports CPU use by default, which a
        // busy host (or a browser beside it in a test) drives to 100% whatever the worker does; this
        // worker's cost is its jobs, so its load is the share of AGENT_MAX_JOBS it runs.
        loadFunc: async (server: AgentServer) => Math.min(server.activeJobs.length / maxJobs, 1),
        loadThreshold: 1,
        production: env.NODE_ENV === "production",
      }),
    ),
);

process.stdout.write(`${JSON.stringify({ msg: "digital human worker starting", agent_names: agentNames })}\n`);
const stop = async () => {
  await Promise.allSettled(servers.map((server) => server.close()));
  voiceServer.kill("SIGTERM");
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
await Promise.all(servers.map((server) => server.run()));
