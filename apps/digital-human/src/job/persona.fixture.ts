/** The persona the digital human's tests start from: the worker's defaults, each test saying only what it needs. */
import { DEFAULT_GREETING, type JobPersona } from "./job-metadata.js";

export function testPersona(overrides: Partial<JobPersona> = {}): JobPersona {
  return {
    instructions: undefined,
    greeting: DEFAULT_GREETING,
    voice: undefined,
    language: "en",
    llm: { model: undefined, temperature: undefined },
    tools: [],
    knowledge: false,
    memory: undefined,
    ...overrides,
  };
}
