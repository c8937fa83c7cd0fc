/**
 * How a digital human is shown (the contract's DigitalHuman): a stock one with its persona as the
 * catalog and the deployment's defaults make it, one of the account's own as it is stored.
 */
import type { DigitalHuman as DigitalHumanView } from "@dhs/contract";
import type { DigitalHumanCatalog, DigitalHuman as StockEntry } from "./digital-human-catalog.js";
import { stockPersona } from "./persona.js";
import type { DigitalHumanRecord } from "./ports.js";

export function stockView(entry: StockEntry, catalog: DigitalHumanCatalog, isDefault: boolean): DigitalHumanView {
  const persona = stockPersona(entry, catalog);
  return {
    id: entry.id,
    kind: "stock",
    name: entry.name,
    description: entry.description ?? null,
    default: isDefault,
    appearance: persona.appearance,
    instructions: persona.instructions,
    greeting: persona.greeting,
    voice: persona.voice,
    language: persona.language,
    llm: persona.llm,
    max_session_duration_s: persona.maxSessionDurationS,
    metadata: {},
    tools: [],
    knowledge: { document_ids: [] },
    analysis: null,
    memory: { enabled: false },
    recording: { audio: false },
    created_at: null,
    updated_at: null,
  };
}

export function customView(record: DigitalHumanRecord): DigitalHumanView {
  const { owner: _owner, ...shown } = record;
  return {
    ...shown,
    kind: "custom",
    default: false,
    llm: { ...record.llm },
    metadata: { ...record.metadata },
    tools: record.tools ?? [],
    knowledge: { document_ids: [...(record.knowledge?.document_ids ?? [])] },
    analysis: record.analysis ?? null,
    memory: { enabled: record.memory?.enabled ?? false },
    recording: { audio: record.recording?.audio ?? false },
  };
}
