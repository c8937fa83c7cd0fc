/**
 * The catalog of digital humans (DIGITAL_HUMANS_FILE): which LiveKit agent to dispatch for a
 * `digital_human_id`, and which accounts may use each (contract guide, "Accounts"). An entry limited to
 * some accounts does not exist for the others. The first entry an account may use is its default.
 * Replaced as a whole when the operator's files are reloaded.
 */

export interface DigitalHuman {
  id: string;
  name: string;
  agent_name: string;
  description?: string | null;
  /** The accounts that may use it; every account when absent. */
  accounts?: readonly string[] | undefined;
}

export class DigitalHumanCatalog {
  private entries: readonly DigitalHuman[] = [];
  private byId = new Map<string, DigitalHuman>();

  constructor(entries: readonly [DigitalHuman, ...DigitalHuman[]]) {
    this.replace(entries);
  }

  replace(entries: readonly [DigitalHuman, ...DigitalHuman[]]): void {
    this.entries = entries;
    this.byId = new Map(entries.map((entry) => [entry.id.toLowerCase(), entry]));
  }

  /** Every entry the account may use, in the catalog's order. */
  forAccount(accountId: string): DigitalHuman[] {
    return this.entries.filter((entry) => mayUse(entry, accountId));
  }

  /** The digital human with this id (or the account's default when none is given), if the account may use it. */
  resolve(id: string | undefined, accountId: string): DigitalHuman | undefined {
    if (id === undefined) return this.forAccount(accountId)[0];
    const entry = this.byId.get(id.toLowerCase());
    return entry && mayUse(entry, accountId) ? entry : undefined;
  }

  /** The entry with this id, whoever may use it (a session that has one keeps it). */
  byIdAnyAccount(id: string): DigitalHuman | undefined {
    return this.byId.get(id.toLowerCase());
  }
}

function mayUse(entry: DigitalHuman, accountId: string): boolean {
  return entry.accounts === undefined || entry.accounts.includes(accountId);
}
