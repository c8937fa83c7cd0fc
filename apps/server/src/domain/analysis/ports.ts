/**
 * What a session's analysis needs from the outside: an OpenAI-compatible LLM that answers a conversation
 * with JSON following a schema (a structured output). The adapter lives in llm/; the error it throws is
 * declared here, so the domain can tell a retry-worthy failure from a final one without importing it.
 */

export interface AnalysisMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface JsonCompletion {
  model: string;
  messages: readonly AnalysisMessage[];
  /** The structured output's name (OpenAI's `json_schema.name`: 1-64 of a-z A-Z 0-9 _ -). */
  schemaName: string;
  /** A schema strict mode takes: every object closed and all its properties required. */
  schema: Record<string, unknown>;
  /** The whole call, answer included, within this. */
  timeoutMs: number;
  /** The caller's own abort (shutting down): rethrown as it comes, not as an LlmCallError. */
  signal?: AbortSignal;
}

export interface AnalysisModel {
  /** The assistant's text (the JSON, unchecked). Throws LlmCallError when there is none. */
  completeJson(call: JsonCompletion): Promise<string>;
}

/**
 * How a call failed. `unreachable`: no answer from the address (refused connection, DNS, reset);
 * `timed_out`: no whole answer in time; `refused`: a 4xx, the request or its key is at fault (429 too:
 * a rate or quota limit); `failed`: a 5xx or an answer that is no completion; `empty`: a completion with
 * no text (the model refused, or said nothing).
 */
export type LlmFailureKind = "unreachable" | "timed_out" | "refused" | "failed" | "empty";

export class LlmCallError extends Error {
  override readonly name = "LlmCallError";
  constructor(
    readonly kind: LlmFailureKind,
    /** Whether the same call may succeed later: 429, 5xx, unreachable and timed out. */
    readonly retryable: boolean,
    message: string,
    /** The HTTP status, for `refused` and `failed` answers. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
