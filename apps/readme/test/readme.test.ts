/**
 * The docs are executable: every shell command that README.md and the Markdown files under docs/ show is
 * run here as a user types it, read from their own code blocks when the test runs, so when the docs change
 * this test follows them, and a command that no longer works fails it. Each block's marker says how it
 * is run:
 *
 * - a *service* block starts its first command and waits until it serves, then runs the others (and
 *   those of blocks marked `against <name>`, in whichever file they are) beside it; a service's marker
 *   names one block in all the files. The docs' example ports (3000, 8080, 7880, 4010, 9000) are
 *   replaced by free ones, through the variable the docs name for each, so runs never collide;
 * - `key-cli` runs the key CLI with a temporary file instead of /etc/dhs;
 * - `speech-stand-in` is started before the `speech` service, which needs it (speechNeeds);
 * - `skip, <reason>` is not run, and the reason is in the test's name.
 *
 * A command with a promised output (`# => ...`) must print it (a JSON object as a subset); any other
 * must exit 0. Every test names the file and line of what it runs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { dropDatabase, freePort, freePortRun, startRedis, waitForOutput } from "@dhs/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { checkAnalysisExample } from "./readme-analysis.js";
import { blockNamed, commandsAgainst, docFiles, docsBlocks, placeOf, type ReadmeCommand } from "./readme-blocks.js";
import { checkBrainExample } from "./readme-brain.js";
import { checkToolExample } from "./readme-tools.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const docs = docFiles(ROOT);
const blocks = docsBlocks(docs);

/** Where the blocks with one of these markers are (`file:line`, ...), for a test's name. */
function placesOf(...markers: string[]): string {
  return blocks
    .filter((b) => markers.includes(b.marker))
    .map(placeOf)
    .join(", ");
}

/**
 * How each service block serves: what it prints once ready, and the docs' ports with the variable that
 * moves each (none: the command names the port itself). LiveKit's port is followed by two more of its own.
 */
const SERVICES: Record<
  string,
  { ready: RegExp; ports: Record<string, string | undefined>; needs?: (moved: Map<string, string>) => Promise<Needs> }
> = {
  "quick-start": {
    ready: /Ready: open http:\/\/localhost:\d+/,
    ports: { "3000": "DEMO_PORT", "8080": "PORT", "7880": "LIVEKIT_PORT" },
    needs: quickStartNeeds,
  },
  service: { ready: /"msg":"listening"/, ports: { "8080": "PORT" } },
  mock: { ready: /Prism is listening/, ports: { "4010": "MOCK_PORT" } },
  operators: { ready: /"msg":"listening"/, ports: { "9000": undefined } },
  // What the docs say is on the machine, made the test's own: a Redis on the moved port (its FLUSHALL
  // must be nobody else's), a database name of its own, and LiveKit in development mode.
  history: { ready: /"msg":"listening"/, ports: { "8080": "PORT", "6379": undefined }, needs: historyNeeds },
  // pnpm demo on speech providers: the stand-in the guide starts first (its `speech-stand-in` block), on the moved port.
  speech: {
    ready: /Ready: open http:\/\/localhost:\d+/,
    ports: { "3000": "DEMO_PORT", "8080": "PORT", "7880": "LIVEKIT_PORT", "8000": undefined },
    needs: speechNeeds,
  },
};

/** A block's dependencies, started for it: the environment and renames it runs with, and how they stop. */
interface Needs {
  env: Record<string, string>;
  rename: (text: string) => string;
  stop: () => Promise<void>;
}

/**
 * The quick start's `npm install -g pnpm@10` asks the registry. npm waits 5 minutes for an answer that
 * stalled, three times, longer than the block may take: a fresh clone's run once sat the whole 10 minutes
 * on it with nothing printed. A stall is cut at 30 s and tried again, as a person would.
 */
async function quickStartNeeds(): Promise<Needs> {
  return {
    env: { NPM_CONFIG_FETCH_TIMEOUT: "30000", NPM_CONFIG_FETCH_RETRIES: "4" },
    rename: String,
    stop: async () => undefined,
  };
}

async function historyNeeds(moved: Map<string, string>): Promise<Needs> {
  const redis = await startRedis({ port: Number(moved.get("6379")) });
  const database = `dhs_readme_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
  const livekitPort = await freePortRun();
  const { stdout: binary } = await run("bash scripts/livekit-server.sh");
  const config = `port: ${livekitPort}\nrtc:\n  tcp_port: ${livekitPort + 1}\n  udp_port: ${livekitPort + 2}\n`;
  const livekit = shell(`'${binary.trim().split("\n").at(-1)}' --dev --bind 127.0.0.1 --config-body "$(printf '${config}')"`, {});
  await waitForOutput(livekit, /starting LiveKit server/, { name: "livekit-server --dev", timeoutMs: 30_000 });
  return {
    env: { LIVEKIT_URL: `ws://localhost:${livekitPort}` },
    rename: (text) =>
      text.replaceAll("127.0.0.1:5432/dhs", `127.0.0.1:5432/${database}`).replaceAll("-U postgres dhs", `-U postgres ${database}`),
    stop: async () => {
      await stop(livekit);
      await redis.stop();
      await dropDatabase(database);
    },
  };
}

/** The guide's stand-in of a speech provider, started as its block shows it, on the port the demo's block is moved to. */
async function speechNeeds(moved: Map<string, string>): Promise<Needs> {
  const [command] = blockNamed(blocks, "speech-stand-in").commands;
  if (!command) throw new Error("the speech-stand-in block is empty");
  const standIn = shell(command.text.replaceAll("8000", moved.get("8000") as string), {});
  await waitForOutput(standIn, /speech stand-in listening/, { name: `${placeOf(command)}: ${command.text}`, timeoutMs: 60_000 });
  return { env: {}, rename: String, stop: () => stop(standIn) };
}

const running = new Set<ChildProcess>();
afterAll(async () => {
  await Promise.all([...running].map(stop));
});

function shell(command: string, env: Record<string, string>): ChildProcess {
  // Its own process group, so the whole tree (pnpm, turbo, node) can be stopped together.
  const child = spawn("bash", ["-c", command], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid, "SIGTERM");
  const timer = setTimeout(() => child.pid && process.kill(-child.pid, "SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

function run(command: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = shell(command, env);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk));
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

/** Runs a one-shot command and checks what the docs promise of it. */
async function check(command: ReadmeCommand, text: string, env: Record<string, string> = {}): Promise<void> {
  const { code, stdout, stderr } = await run(text, env);
  const where = `${placeOf(command)}: ${text}\n${stdout}${stderr}`.slice(0, 4000);
  if (!command.expected) return void expect(code, where).toBe(0);
  if ("json" in command.expected) {
    let actual: unknown;
    expect(() => (actual = JSON.parse(stdout)), where).not.toThrow();
    expect(actual, where).toMatchObject(command.expected.json);
  } else {
    expect(stdout + stderr, where).toContain(command.expected.text);
  }
}

describe(`the docs' shell commands (README.md and the ${docs.length - 1} Markdown files under docs/)`, () => {
  it("are all marked with how they are tested", () => {
    const known = new Set([
      ...Object.keys(SERVICES),
      "key-cli",
      "speech-stand-in",
      ...Object.keys(SERVICES).map((name) => `against ${name}`),
    ]);
    expect(blocks.filter((b) => !known.has(b.marker) && !b.marker.startsWith("skip, ")).map((b) => `${placeOf(b)}: ${b.marker}`)).toEqual(
      [],
    );
  });

  it("name each service in one block, and run nothing against a service without one", () => {
    for (const name of Object.keys(SERVICES)) expect(() => blockNamed(blocks, name), name).not.toThrow();
    const against = blocks.filter((b) => b.marker.startsWith("against ")).map((b) => b.marker.slice("against ".length));
    expect(against.filter((name) => !(name in SERVICES))).toEqual([]);
  });

  for (const [name, service] of Object.entries(SERVICES)) {
    it(`"${name}" (${placesOf(name, `against ${name}`)}): the service starts as shown and every command beside it does what the docs say`, async () => {
      const block = blockNamed(blocks, name);
      const moved = new Map<string, string>();
      for (const readmePort of Object.keys(service.ports))
        moved.set(readmePort, String(readmePort === "7880" ? await freePortRun() : await freePort()));
      const needs = await service.needs?.(moved);
      const local = (text: string) => (needs?.rename ?? String)(text.replaceAll(/\b\d{4}\b/g, (port) => moved.get(port) ?? port));
      // The metrics port is fixed by default; two services side by side would collide on it.
      const env: Record<string, string> = { METRICS_PORT: "0", ...needs?.env };
      for (const [readmePort, variable] of Object.entries(service.ports)) if (variable) env[variable] = moved.get(readmePort) as string;
      const [first, ...rest] = block.commands;
      if (!first) throw new Error(`${placeOf(block)}: an empty block`);
      const server = shell(local(first.text), env);
      try {
        // pnpm demo may build livekit-server with Go first (minutes, on a machine that never did).
        await waitForOutput(server, service.ready, { name: `${placeOf(first)}: ${first.text}`, timeoutMs: 600_000 });
        const beside = [...rest, ...commandsAgainst(blocks, name)];
        for (const command of beside) {
          if (name === "quick-start" && command === rest[0]) continue; // the test command: see below
          await check(command, local(command.text), { METRICS_PORT: "0" });
        }
        if (name === "quick-start") {
          // The backend teams' example (docs/backend.md), against the demo it promises it works with.
          const { answer } = await checkBrainExample(docs, ROOT, `http://localhost:${moved.get("8080")}`);
          expect(answer).toBe("Your order shipped this morning.");
          // The tool example (docs/backend.md, "Tools"): the customer's own order, and not another's.
          const tool = await checkToolExample(docs, ROOT, `http://localhost:${moved.get("8080")}`);
          expect(tool.own).toMatchObject({ status: "succeeded", result: { status: "shipped", arrives: "Thursday" } });
          expect(tool.another).toMatchObject({ status: "failed", error: "There is no order A-1042 for this customer." });
          // The lead-capture example (docs/backend.md, "Analysis"): the lead its endpoint received through the
          // verified session.analysis_ready event is what the example set with the test helper.
          const run = await checkAnalysisExample(docs, ROOT, `http://localhost:${moved.get("8080")}`);
          const lead = { name: "Ada Lovelace", email: "ada@example.com", request: "A quote for 40 seats" };
          const summary = "Ada asked for a quote for 40 seats and left her e-mail address.";
          expect(run.lead).toEqual({ session_id: expect.stringMatching(/^[0-9a-f-]{36}$/), ...lead, summary });
          expect(run.read).toBe("complete");
          expect(run.analysis).toMatchObject({ session_id: run.lead.session_id, status: "complete", data: lead, summary });
          expect(run.analysis.success_criteria.map((c: { result: string }) => c.result)).toEqual(["met", "met"]);
          // Answered 2xx: the handler answers only once verifyWebhook took the delivery.
          expect(run.deliveries).toEqual([expect.objectContaining({ outcome: "succeeded", status_code: 204, attempt: 1 })]);
          // A forged delivery: verifyWebhook threw (Express answers its error), no second lead.
          expect(run.forged.status).toBeGreaterThanOrEqual(400);
          expect(run.forged.leads).toBe(1);
        }
      } finally {
        await stop(server);
        await needs?.stop();
      }
    });
  }

  it(`"quick-start" (${placesOf("quick-start")}): its test command is what CI runs (running it here would run this test inside itself)`, () => {
    const [, tests] = blockNamed(blocks, "quick-start").commands;
    expect(tests?.text).toBeDefined();
    const ci = readFileSync(join(ROOT, ".ci/run"), "utf8");
    for (const step of (tests?.text ?? "").split("&&").map((s) => s.trim()))
      expect(ci, step).toContain(step.replace(/^pnpm install$/, "pnpm install --frozen-lockfile"));
  });

  it(`"key-cli" (${placesOf("key-cli")}): the key CLI prints a new key once and stores only its SHA-256 in the file`, async () => {
    const [create, ...others] = blockNamed(blocks, "key-cli").commands;
    if (!create) throw new Error("the key-cli block is empty");
    // The docs' placeholder lines end in `...`: they show where the file goes, not a command to run.
    expect(others.every((command) => command.text.replace(/\s+#.*$/, "").endsWith("..."))).toBe(true);
    const file = join(mkdtempSync(join(tmpdir(), "dhs-readme-")), "api-keys.json");
    const { code, stdout, stderr } = await run(create.text.replace("/etc/dhs/api-keys.json", file));
    expect(code, stdout + stderr).toBe(0);
    const key = stdout.match(/dhs_[A-Za-z0-9_-]{20,}/)?.[0];
    expect(key, stdout).toBeDefined();
    const stored = JSON.parse(readFileSync(file, "utf8")) as { keys: { sha256: string; account_id: string }[] };
    expect(stored.keys).toEqual([
      expect.objectContaining({
        account_id: "acct_1",
        sha256: createHash("sha256")
          .update(key as string)
          .digest("hex"),
      }),
    ]);
    expect(readFileSync(file, "utf8")).not.toContain(key);
  });

  for (const block of blocks.filter((b) => b.marker.startsWith("skip, "))) {
    it.skip(`${placeOf(block)} is not run: ${block.marker.slice("skip, ".length)}`, () => undefined);
  }
});
