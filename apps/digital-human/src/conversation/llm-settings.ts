/**
 * Where the digital human's LLM is: any server that speaks OpenAI's Chat Completions API (OpenAI, Groq,
 * Together, vLLM, llama.cpp's server, Ollama), named by the OpenAI SDK's own variables (OPENAI_BASE_URL,
 * OPENAI_API_KEY) and the deployment's DHS_LLM_MODEL and DHS_LLM_TIMEOUT_S, declared and checked with the
 * worker's other settings (worker/worker-config.ts). Without OPENAI_BASE_URL there is none, and the digital
 * human only acknowledges (conversation-agent.ts).
 */
import * as openai from "@livekit/agents-plugin-openai";
import type { JobPersona } from "../job/job-metadata.js";
import type { WorkerConfig } from "../worker/worker-config.js";

export interface LlmSettings {
  baseUrl: string;
  apiKey: string;
  defaultModel: string;
  timeoutMs: number;
}

export type LlmLookup = { settings: LlmSettings } | { missing: string };

export function llmSettings(
  config: Pick<WorkerConfig, "OPENAI_BASE_URL" | "OPENAI_API_KEY" | "DHS_LLM_MODEL" | "DHS_LLM_TIMEOUT_S">,
): LlmLookup {
  if (config.OPENAI_BASE_URL === undefined) return { missing: "OPENAI_BASE_URL is not set" };
  return {
    settings: {
      baseUrl: config.OPENAI_BASE_URL,
      // The plugin refuses to start without a key; servers that take none ignore it.
      apiKey: config.OPENAI_API_KEY ?? "none",
      defaultModel: config.DHS_LLM_MODEL,
      timeoutMs: config.DHS_LLM_TIMEOUT_S * 1000,
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
