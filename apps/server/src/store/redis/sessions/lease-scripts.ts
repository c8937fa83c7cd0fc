/** The Lua of leases (Leases): work one replica at a time should do. */
import { script } from "../script.js";

export const LEASE_SCRIPTS = {
  acquireLease: script<{ lease: string; holder: string; ttlMs: number }, number>({
    lua: `
-- Takes a lease for ARGV[2] ms unless another holder has it; its holder renews it.
-- KEYS[1] the lease
-- ARGV[1] the holder, ARGV[2] the TTL (ms)
-- Returns 1 when this holder has it now, 0 when another does.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`,
    keys: (a) => [a.lease],
    argv: (a) => [a.holder, a.ttlMs],
  }),
};
