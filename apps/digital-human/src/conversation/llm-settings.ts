/**
 * Where the digital human's LLM is: any server that speaks OpenAI's Chat Completions API (OpenAI, Groq,
 * Together, vLLM, llama.cpp's server, Ollama), named by the OpenAI SDK's own variables. Without
 * OPENAI_BASE_URL there is none, and the digital human only acknowledges (conversation-agent.ts).
 *
 *   OPENAI_BASE_URL   the API's root, `/v1` included (https://api.groq.com/openai/v1, http://127.0.0.1:11434/v1)
 *   OPENAI_API_KEY    its key; a local server that takes none may leave it unset
 *   DHS_LLM_MODEL     the model when the persona names none (the deployment's default)
 *   DHS_LLM_TIMEOUT_S how long a reply may go without a token before the digital human apologizes (8)
 */
import * as openai from "@livekit/agents-plugin-openai";
import type { JobPersona } from "../job/job-metadata.js";

export const DEFAULT_LLM_TIMEOUT_S = 8;

export interface LlmSettings {
  baseUrl: string;
  apiKey: string;
  defaultModel: string;
  timeoutMs: number;
}

export type LlmLookup = { settings: LlmSettings } | { missing: string } | { invalid: string };

export function llmSettings(env: NodeJS.ProcessEnv): LlmLookup {
  const baseUrl = env.OPENAI_BASE_URL?.trim() ?? "";
  if (baseUrl === "") return { missing: "OPENAI_BASE_URL is not set" };
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== "http:" && url.protocol !== "https:") return { invalid: `OPENAI_BASE_URL is not an http(s) address: ${baseUrl}` };
  } catch {
    return { invalid: `OPENAI_BASE_URL is not an address: ${baseUrl}` };
  }
  const timeoutS = Number(env.DHS_LLM_TIMEOUT_S ?? DEFAULT_LLM_TIMEOUT_S);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0)
    return { invalid: `DHS_LLM_TIMEOUT_S is not a positive number of seconds: ${env.DHS_LLM_TIMEOUT_S}` };
  return {
    settings: {
      baseUrl,
      // The plugin refuses to start without a key; servers that take none ignore it.
      apiKey: env.OPENAI_API_KEY?.trim() || "none",
      defaultModel: env.DHS_LLM_MODEL?.trim() || "gpt-4o-mini",
      timeoutMs: timeoutS * 1000,
    },
  };
}

/** The persona's model and temperature, at the deployment's endpoint. */
export function createLlm(settings: LlmSettings, persona: JobPersona): openai.LLM {
  const options = { baseURL: settings.baseUrl, apiKey: settings.apiKey, model: persona.llm.model ?? settings.defaultModel };
  const { temperature } = persona.llm;
  if (temperature === undefined) return new openai.LLM(options);
  return new PersonaTemperatureLlm({ ...options, temperature }, temperature);
}

/**
 * The plugin sends its temperature only when it is truthy (`if (temperature)` in its chat()), so a persona's
 * 0, the most deterministic answers a customer can ask for, would reach the server as no temperature and
 * get its default (1 at OpenAI). Here every request carries it as a request parameter of its own, which
 * the plugin passes on as given.
 */
class PersonaTemperatureLlm extends openai.LLM {
  constructor(
    options: ConstructorParameters<typeof openai.LLM>[0],
    private readonly temperature: number,
  ) {
    super(options);
  }

  override chat(request: Parameters<openai.LLM["chat"]>[0]): ReturnType<openai.LLM["chat"]> {
    return super.chat({ ...request, extraKwargs: { temperature: this.temperature, ...request.extraKwargs } });
  }
}
