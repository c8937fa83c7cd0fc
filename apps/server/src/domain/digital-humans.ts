/**
 * The catalog of digital humans (DIGITAL_HUMANS_FILE): which LiveKit agent to dispatch for a `digital_human_id`. The
 * first entry is the default when a create names none.
 */

export interface DigitalHuman {
  id: string;
  name: string;
  agent_name: string;
}

export class DigitalHumanCatalog {
  private readonly byId: Map<string, DigitalHuman>;

  constructor(readonly entries: readonly [DigitalHuman, ...DigitalHuman[]]) {
    this.byId = new Map(entries.map((entry) => [entry.id.toLowerCase(), entry]));
  }

  get default(): DigitalHuman {
    return this.entries[0];
  }

  /** The digital human with this id (or the default when none is given); undefined when unknown. */
  resolve(id: string | undefined): DigitalHuman | undefined {
    return id === undefined ? this.default : this.byId.get(id.toLowerCase());
  }
}
