/**
 * What a bench run is told by its environment (the variables `run.ts` lists), and the accounts and keys
 * it runs with: one account per BENCH_ACCOUNTS, an account capped at one open session, and a quiet
 * account with no webhook endpoint.
 */
import { fileURLToPath } from "node:url";

/** A path beside this file's. */
export const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
export const WARMUP_S = 3;
export const CONNECTIONS = 32;
export const STORED = (process.env.BENCH_STORED ?? "1").split(",").map(Number);
export const MEMORY_SESSIONS = Number(process.env.BENCH_MEMORY_SESSIONS ?? 100_000);
export const GET_TARGETS = 64;
export const API_KEY = "dhs_bench_key";
export const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1);
export const CLUSTER = process.env.BENCH_REDIS === "cluster";
/**
 * Sections a full run leaves out (BENCH_SKIP="conversation,history,tools,knowledge"): an older build, measured with
 * BENCH_SERVER for a before-and-after table, has no operations for them. A name not listed is refused,
 * so a typo cannot drop a section quietly.
 */
const SECTIONS = ["conversation", "history", "tools", "knowledge"];
export const SKIP = new Set((process.env.BENCH_SKIP ?? "").split(",").filter(Boolean));
for (const name of SKIP) {
  if (!SECTIONS.includes(name)) throw new Error(`BENCH_SKIP: no section "${name}" (${SECTIONS.join(", ")})`);
}
/** Sessions per account whose LiveKit webhooks are measured. */
export const EVENT_SESSIONS = Number(process.env.BENCH_EVENT_SESSIONS ?? 2000);
/** A key of an account whose limit of open sessions is 1: once it has one, every create is refused. */
export const CAPPED_KEY = "dhs_bench_capped_key";
/** A key of an account with no webhook endpoint: what a LiveKit event costs without the deliveries it causes. */
export const QUIET = { key: "dhs_bench_quiet_key", accountId: "acct_bench_quiet" };
/** A key of an account with every scope and no endpoint but its tool's: what a tool call costs alone. */
export const TOOLS = { key: "dhs_bench_tools_key", accountId: "acct_bench_tools" };
/** Tool calls measured for their CPU (over 16 connections), and one after another for their latency. */
export const TOOL_CALLS = Number(process.env.BENCH_TOOL_CALLS ?? 2000);
export const ACCOUNT = "acct_bench";
export const STORED_ACCOUNT = "acct_bench_stored";
export const LIVEKIT = { key: "bench-key", secret: "bench-secret-that-is-long-enough-for-hs256" };

/** The bench's accounts: the first is ACCOUNT with API_KEY, as with one account. */
export const accounts = Array.from({ length: ACCOUNTS }, (_, i) => ({
  key: i === 0 ? API_KEY : `${API_KEY}_${i}`,
  keyId: i === 0 ? "key_bench" : `key_bench_${i}`,
  accountId: i === 0 ? ACCOUNT : `${ACCOUNT}_${i}`,
}));
/** Sessions per account whose conversation (say, the job's pull and reports) is measured. */
export const CONVERSATION_SESSIONS = Number(process.env.BENCH_CONVERSATION_SESSIONS ?? 1000);
