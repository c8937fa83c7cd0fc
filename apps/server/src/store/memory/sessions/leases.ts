/** Leases in memory (Leases): name -> its holder and when it runs out. */
import type { Leases } from "../../../domain/sessions/ports.js";
import type { MemorySessionState } from "./state.js";

export class MemoryLeases implements Leases {
  constructor(private readonly state: MemorySessionState) {}

  async acquireLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const { state } = this;
    const held = state.leases.get(name);
    if (held && held.until > state.now() && held.holder !== holder) return false;
    state.leases.set(name, { holder, until: state.now() + ttlMs });
    return true;
  }
}
