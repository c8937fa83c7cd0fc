/**
 * The tools of a job's metadata (DigitalHumanJob.digital_human.tools), read as the rest of it is: each
 * kept only when it has the contract's shape (a tool the job cannot offer its LLM is left out, never
 * guessed at), names unique, defaults filled as the service fills them.
 */
import type { Tool } from "@dhs/contract";

const NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;
const DEFAULT_TIMEOUT_MS = 5_000;
const EMPTY_PARAMETERS = { type: "object", properties: {} };
const END_DESCRIPTION = "End the conversation when the participant says goodbye or asks to end it. Say your goodbye first.";

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

export function readTools(value: unknown): Tool[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const tools: Tool[] = [];
  for (const item of value) {
    const tool = readTool(item);
    if (tool && !tools.some((t) => t.name === tool.name)) tools.push(tool);
  }
  return tools;
}

function readTool(item: unknown): Tool | undefined {
  if (!isRecord(item) || typeof item.name !== "string" || !NAME.test(item.name)) return undefined;
  const description = typeof item.description === "string" && item.description.length > 0 ? item.description : undefined;
  if (item.type === "end_session") return { type: "end_session", name: item.name, description: description ?? END_DESCRIPTION };
  if ((item.type !== "webhook" && item.type !== "client") || description === undefined) return undefined;
  const parameters = isRecord(item.parameters) && item.parameters.type === "object" ? item.parameters : { ...EMPTY_PARAMETERS };
  const timeout =
    typeof item.timeout_ms === "number" && item.timeout_ms >= 500 && item.timeout_ms <= 30_000 ? item.timeout_ms : DEFAULT_TIMEOUT_MS;
  const common = { name: item.name, description, parameters, timeout_ms: timeout };
  if (item.type === "client") return { type: "client", ...common };
  return { type: "webhook", ...common, endpoint_id: typeof item.endpoint_id === "string" ? item.endpoint_id : "" };
}
