/** Leases on Redis (Leases): one key per lease holding its holder, taken and renewed by one script (lease-scripts.ts). */
import type { Leases } from "../../../domain/sessions/ports.js";
import { guard } from "../guard.js";
import type { SessionStoreContext } from "./context.js";

export class RedisLeases implements Leases {
  constructor(private readonly context: SessionStoreContext) {}

  acquireLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const { keys, scripts } = this.context;
    return guard(async () => (await scripts.run("acquireLease", { lease: keys.lease(name), holder, ttlMs })) === 1);
  }
}
