/**
 * What the session's documents say about a participant's turn (contract guide, "Knowledge"): one search
 * through the service per turn's words (searchSessionKnowledge, with the job's token), shared by the
 * turn's report (which names the passages) and the reply (which is given them), and never allowed to
 * hold the reply up: past its deadline, or failing, a turn simply has no passages.
 */
import type { components } from "@dhs/contract";

export type Passage = components["schemas"]["KnowledgePassage"];

/** The service's search: the passages, or undefined when it could not answer. */
export type SearchKnowledge = (query: string) => Promise<Passage[] | undefined>;

export interface TurnKnowledgeOptions {
  /** The longest a turn waits for its passages (ms). */
  timeoutMs: number;
  /** A search finished (the timeline's "knowledge" step), with how long it took and how many passages it found. */
  onSearched?(ms: number, passages: number): void;
}

/** How long a turn waits for its passages by default: well above the service's p95, well below a pause. */
export const KNOWLEDGE_TIMEOUT_MS = 1_500;

export class TurnKnowledge {
  private last: { text: string; found: Promise<Passage[]> } | undefined;

  constructor(
    private readonly search: SearchKnowledge,
    private readonly options: TurnKnowledgeOptions,
  ) {}

  /** The passages for the turn's words; the same promise for the same words (the report's and the reply's). */
  forTurn(text: string): Promise<Passage[]> {
    const words = text.trim();
    if (this.last?.text === words) return this.last.found;
    const found = words === "" ? Promise.resolve([]) : this.searched(words);
    this.last = { text: words, found };
    return found;
  }

  private async searched(words: string): Promise<Passage[]> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.options.timeoutMs);
    });
    try {
      const passages = (await Promise.race([this.search(words).catch(() => undefined), deadline])) ?? [];
      this.options.onSearched?.(Math.round(performance.now() - started), passages.length);
      return passages;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The turn's passages as the LLM is given them: a system message of that turn only, saying where they
 * come from and that they are the only source of facts beyond the instructions.
 */
export function knowledgeMessage(passages: readonly Passage[]): string {
  const quoted = passages.map((p) => `[${p.document_name}]\n${p.text}`).join("\n\n");
  return (
    "Passages from the business's documents that may answer the participant's last turn. Answer from them " +
    "when they do, in your own short spoken words; if they do not, say you do not know rather than guess.\n\n" +
    quoted
  );
}
