/**
 * Redis key layout. Every key of an account carries the account as its hash tag, `{acct_1}`, so a
 * session and the idempotency record that created it live in one Redis Cluster slot and one Lua script
 * can write both. Account isolation follows from the layout: a session is only ever looked up under the
 * caller's own account.
 */

export const keys = {
  session: (accountId: string, sessionId: string) => `dhs:{${accountId}}:session:${sessionId}`,
  idempotency: (accountId: string, idempotencyKey: string) => `dhs:{${accountId}}:idem:${idempotencyKey}`,
};

/**
 * Idempotency records are small strings: `p|<fingerprint>|<lock>` while the first request runs,
 * `d|<fingerprint>|<session id>` once it is done.
 */
export const idempotencyRecord = {
  pending: (fingerprint: string, lock: string) => `p|${fingerprint}|${lock}`,
  done: (fingerprint: string, sessionId: string) => `d|${fingerprint}|${sessionId}`,
};
