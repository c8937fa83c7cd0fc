/**
 * The catalog of digital humans (DIGITAL_HUMANS_FILE): which LiveKit agent to dispatch for a
 * `digital_human_id`, and which accounts may use each (contract guide, "Accounts") and in which modes
 * (live keys' sessions, test keys'). An entry limited to some accounts or modes does not exist for the
 * others. The first entry an account may use in a mode is its default there.
 * Replaced as a whole when the operator's files are reloaded.
 */

import type { Mode } from "../accounts/api-keys.js";

export interface DigitalHuman {
  id: string;
  name: string;
  agent_name: string;
  description?: string | null;
  /** The accounts that may use it; every account when absent. */
  accounts?: readonly string[] | undefined;
  /** The modes whose sessions may get it; both when absent. */
  modes?: readonly Mode[] | undefined;
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

  /** Every entry the account may use in a mode, in the catalog's order. */
  forAccount(accountId: string, mode: Mode = "live"): DigitalHuman[] {
    return this.entries.filter((entry) => mayUse(entry, accountId, mode));
  }

  /** The digital human with this id (or the default when none is given), if the account may use it in the mode. */
  resolve(id: string | undefined, accountId: string, mode: Mode = "live"): DigitalHuman | undefined {
    if (id === undefined) return this.forAccount(accountId, mode)[0];
    const entry = this.byId.get(id.toLowerCase());
    return entry && mayUse(entry, accountId, mode) ? entry : undefined;
  }

  /** The entry with this id, whoever may use it (a session that has one keeps it). */
  byIdAnyAccount(id: string): DigitalHuman | undefined {
    return this.byId.get(id.toLowerCase());
  }
}

function mayUse(entry: DigitalHuman, accountId: string, mode: Mode): boolean {
  return (entry.accounts === undefined || entry.accounts.includes(accountId)) && (entry.modes === undefined || entry.modes.includes(mode));
}
