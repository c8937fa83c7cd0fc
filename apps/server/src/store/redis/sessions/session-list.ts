/**
 * A list of an account's sessions on Redis (SessionRecords.listSessions), newest first: its open sessions
 * from the account's open set, its ended ones from their per-day indexes (one per shard, each in its
 * shard's slot), over the days the account created sessions on. Each entry is checked against its record.
 */

import { isAfterCursor, type ListPosition, newestFirst } from "../../../domain/list-order.js";
import type { ListQuery } from "../../../domain/sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../../../domain/sessions/session.js";
import { decodeSession } from "../../session-format.js";
import { guard } from "../guard.js";
import { dayOf, SHARDS } from "../keys.js";
import { readSessions, type SessionStoreContext } from "./context.js";

// Each day's ended sessions are in one index per shard: two days are 64 reads a round trip.
const DAYS_PER_READ = 2;
const SHARD_INDEXES = Array.from({ length: SHARDS }, (_, shard) => shard);
// Another replica's clock may be ahead: a list without a cursor starts from the day a minute from now.
const CLOCK_SKEW_MS = 60_000;

export class RedisSessionList {
  constructor(private readonly context: SessionStoreContext) {}

  /**
   * Newest first. Open sessions come from the account's open sessions, ended ones from its per-day
   * indexes; each entry is checked against its record, so an entry whose session expired meanwhile (a
   * day's index lives until its last session has) or has another status than asked for is skipped, and
   * the page is filled from further entries. A session that ends while the list is read may be found in
   * both (its end lists it among the ended before it gives back its place) or only among the open ones
   * (it ended after the ended indexes were read): it is listed once, as its record says, either way.
   */
  listSessions(accountId: string, query: ListQuery): Promise<SessionRecord[]> {
    return guard(async () => {
      const want = query.limit + 1;
      const found: SessionRecord[] = [];
      const seen = new Set<string>();
      let after = query.after;
      for (;;) {
        const need = want - found.length;
        const entries = await this.positions(accountId, query, after, need);
        if (entries.length === 0) break;
        const jsons = await this.readAll(entries.map((entry) => entry.id));
        entries.forEach((entry, i) => {
          const json = jsons[i];
          if (!json || seen.has(entry.id)) return;
          const record = decodeSession(json, entry.id);
          if (record.account_id !== accountId) return;
          if (query.status !== undefined && record.status !== query.status) return;
          seen.add(entry.id);
          found.push(record);
        });
        if (entries.length < need || found.length >= want) break;
        after = entries.at(-1);
      }
      return found;
    });
  }

  /** The records of the entries found (a test ends a session between the index reads and these). */
  private readAll(sessionIds: readonly string[]): Promise<(string | null)[]> {
    return readSessions(this.context, sessionIds);
  }

  /**
   * Up to `want` index entries after the cursor, newest first: the open sessions, then the ended ones'
   * per-day indexes (one per shard) of the days the account created sessions on, from the cursor's day
   * back to the oldest that can still hold a session, DAYS_PER_READ days per round trip, until no older
   * day can hold a newer entry than those found.
   */
  private async positions(accountId: string, query: ListQuery, after: ListPosition | undefined, want: number): Promise<ListPosition[]> {
    const { redis, keys } = this.context;
    const wantsOpen = query.status === undefined || !TERMINAL.has(query.status);
    const wantsEnded = query.status === undefined || TERMINAL.has(query.status);
    const found = wantsOpen ? await this.indexPage(keys.open(accountId), after, want) : [];
    if (wantsEnded) {
      // Only the days the account created sessions on, newest first, from the cursor's (or a minute
      // from now: another replica's clock may be ahead) back to the oldest that can still hold one.
      const oldest = Date.parse(dayOf(query.oldestCreatedMs));
      const from = Date.parse(dayOf(after?.createdAtMs ?? Date.now() + CLOCK_SKEW_MS));
      const [days] = await Promise.all([
        redis.zrevrangebyscore(keys.days(accountId), from, oldest),
        redis.zremrangebyscore(keys.days(accountId), "-inf", `(${oldest}`),
      ]);
      for (let i = 0; i < days.length; i += DAYS_PER_READ) {
        const batch = days.slice(i, i + DAYS_PER_READ);
        const pages = await Promise.all(
          batch.flatMap((day) => SHARD_INDEXES.map((shard) => this.indexPage(keys.ended(accountId, shard, day), after, want))),
        );
        found.push(...pages.flat());
        found.sort(newestFirst);
        const last = found[want - 1];
        if (last && last.createdAtMs >= Date.parse(batch.at(-1) as string)) break;
      }
    }
    return found.sort(newestFirst).slice(0, want);
  }

  /** Up to `want` entries of one index after the cursor, newest first. */
  private async indexPage(index: string, after: ListPosition | undefined, want: number): Promise<ListPosition[]> {
    const entries: ListPosition[] = [];
    // From the cursor's time down: entries with that very time may still be on the previous page.
    for (let offset = 0; entries.length < want; offset += want) {
      const batch = await this.context.redis.zrevrangebyscore(
        index,
        after ? after.createdAtMs : "+inf",
        "-inf",
        "WITHSCORES",
        "LIMIT",
        offset,
        want,
      );
      for (let i = 0; i < batch.length && entries.length < want; i += 2) {
        const entry = { id: batch[i] as string, createdAtMs: Number(batch[i + 1]) };
        if (isAfterCursor(entry, after)) entries.push(entry);
      }
      if (batch.length < want * 2) break;
    }
    return entries;
  }
}
