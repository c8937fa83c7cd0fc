/**
 * The deployment's default catalog (digital-humans.json): one stock digital human, Ava, and the voices
 * the reference worker speaks. The service reads it whole when DIGITAL_HUMANS_FILE names no file of its
 * own (apps/server/src/config/operator-files.ts checks it); the worker reads from it, or from that file,
 * only the agent names to register and the voices to speak (agentCatalog). One file for both, shipped
 * with each of them.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Where the default catalog is, wherever this package is installed. */
export const defaultCatalogFile = fileURLToPath(new URL("../digital-humans.json", import.meta.url));

/** What the worker needs of a catalog: the LiveKit agent names to register, the voices it is to speak. */
export interface AgentCatalog {
  agentNames: string[];
  /** The voices' ids, the default first: the file's, or the default catalog's when the file has none (as the service reads it). */
  voices: string[];
}

type CatalogFile = { digital_humans: { agent_name: string }[]; voices?: { id: string }[] };

const read = (file: string) => JSON.parse(readFileSync(file, "utf8")) as CatalogFile;

export function agentCatalog(file: string = defaultCatalogFile): AgentCatalog {
  const catalog = read(file);
  return {
    agentNames: [...new Set(catalog.digital_humans.map((d) => d.agent_name))],
    voices: (catalog.voices ?? read(defaultCatalogFile).voices ?? []).map((voice) => voice.id),
  };
}
