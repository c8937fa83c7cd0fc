/**
 * The Lua of a digital human create's Idempotency-Key (store/hybrid/digital-human-store.ts): PostgreSQL
 * keeps the digital humans, Redis only the keys of their creates, each on its owner's slot.
 */
import { script } from "./script.js";

export const DIGITAL_HUMAN_KEY_SCRIPTS = {
  swapCreateKey: script<{ key: string; expected: string; next: string }, number>({
    lua: `
-- Moves a create's Idempotency-Key on from what this request claimed (its claim taken over, marked
-- done, given back), unless another request took it meanwhile; its expiry stays.
-- KEYS[1] the key
-- ARGV[1] what it must hold, ARGV[2] what it holds next ('' to forget it)
-- Returns 1 when moved, 0 when it held something else.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
return 1
`,
    keys: (a) => [a.key],
    argv: (a) => [a.expected, a.next],
  }),
};
