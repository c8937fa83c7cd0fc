#!/usr/bin/env node
/**
 * The README's test command (`pnpm test`): builds once, then runs every tier, two side by side where the
 * machine has two cores or more, and prints each tier's time and result at the end. Every tier
 * runs even after one failed, so one failure never hides whether the others pass; the exit code is 1
 * when any failed.
 *
 * Side by side only where it was measured not to starve the tier beside (`/usr/bin/time` on the 2-core
 * machine CI runs on; docs/development.md, "Tiers"): the server's suites (1.6 cores busy) beside the small
 * packages' and the docs tier (about half a core, for a minute and a half). The end-to-end tier (real-time
 * audio and a browser) and the fault tier (503 latencies under load) each run alone: side by side on a
 * fresh clone, the fault tier's server saw a Redis command time out (500 ms) while the end-to-end tier ran.
 *
 * TEST_LANES=1 runs every tier one after the other (a one-core machine, or to time one tier alone);
 * TEST_TIERS=server,e2e runs only the tiers named.
 */
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { createInterface } from "node:readline";

/** Each tier: the package and its script, as `pnpm --filter <package> run <script>` runs it. */
const TIERS = {
  server: ["@dhs/server", "test"],
  fault: ["@dhs/server", "test:fault"],
  e2e: ["@dhs/e2e", "test:e2e"],
  "digital-human": ["@dhs/digital-human", "test"],
  readme: ["@dhs/readme", "test:readme"],
  client: ["@dhs/client", "test"],
  contract: ["@dhs/contract", "test"],
  catalog: ["@dhs/catalog", "test"],
  settings: ["@dhs/settings", "test"],
  testkit: ["@dhs/testkit", "test"],
  mock: ["@dhs/mock", "test"],
  docs: ["@dhs/docs", "test"],
};

/** The tier names' width, for the prefix of each line and the final table. */
const WIDTH = Math.max(...Object.keys(TIERS).map((tier) => tier.length));

/** Phases one after the other; in a phase, its lanes side by side, each lane's tiers in turn. */
const PHASES = [
  [["server"], ["digital-human", "client", "contract", "catalog", "settings", "testkit", "mock", "docs", "readme"]],
  [["e2e"]],
  [["fault"]],
];

const only = process.env.TEST_TIERS?.split(",").filter(Boolean);
for (const name of only ?? []) {
  if (!(name in TIERS)) fail(`TEST_TIERS names "${name}"; the tiers are ${Object.keys(TIERS).join(", ")}`);
}
const wanted = (lane) => lane.filter((tier) => only === undefined || only.includes(tier));
const sideBySide = Number(process.env.TEST_LANES || availableParallelism()) >= 2;
// One lane, one tier after the other, when the machine (or TEST_LANES=1) says so.
const phases = (sideBySide ? PHASES : [[PHASES.flat(2)]]).map((lanes) => lanes.map(wanted).filter((lane) => lane.length > 0));

const children = new Set();
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    for (const child of children) killGroup(child, signal);
    process.exit(130);
  });
}

const started = Date.now();
if ((await run("build", "pnpm", ["exec", "turbo", "run", "build", "--output-logs=errors-only"])) !== 0) {
  fail("the build failed: no tier was run");
}
const results = [];
for (const lanes of phases) {
  await Promise.all(
    lanes.map(async (lane) => {
      for (const tier of lane) {
        const [pkg, script] = TIERS[tier];
        const from = Date.now();
        const code = await run(tier, "pnpm", ["--filter", pkg, "run", script]);
        results.push({ tier, passed: code === 0, ms: Date.now() - from });
      }
    }),
  );
}
report(results, Date.now() - started);
process.exit(results.every((result) => result.passed) ? 0 : 1);

/** Runs one command with each line of its output prefixed by `name`; resolves with its exit code. */
function run(name, command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
    children.add(child);
    for (const [stream, out] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
        out.write(`${name.padEnd(WIDTH)} | ${line}\n`);
      });
    }
    child.on("error", (error) => {
      process.stderr.write(`${name}: ${error.message}\n`);
    });
    child.on("close", (code, signal) => {
      children.delete(child);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

/** A tier's whole process group: vitest's workers, servers and browsers the tests started. */
function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

function report(done, wallMs) {
  const order = Object.keys(TIERS);
  const sorted = [...done].sort((a, b) => order.indexOf(a.tier) - order.indexOf(b.tier));
  const lines = sorted.map(
    ({ tier, passed, ms }) => `  ${tier.padEnd(WIDTH)}  ${passed ? "passed" : "FAILED"}  ${duration(ms).padStart(8)}`,
  );
  const sum = done.reduce((total, result) => total + result.ms, 0);
  const failed = done.filter((result) => !result.passed).map((result) => result.tier);
  process.stdout.write(
    [
      "",
      `Tiers (${sideBySide ? "the server's beside the small ones, then end-to-end, then fault" : "one after the other"}):`,
      ...lines,
      `  ${"whole run".padEnd(WIDTH)}  ${failed.length === 0 ? "passed" : "FAILED"}  ${duration(wallMs).padStart(8)}  (the tiers' times add up to ${duration(sum)})`,
      ...(failed.length === 0 ? [] : [`Failed: ${failed.join(", ")}`]),
      "",
    ].join("\n"),
  );
}

function duration(ms) {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}

function fail(message) {
  process.stderr.write(`test-tiers: ${message}\n`);
  process.exit(1);
}
