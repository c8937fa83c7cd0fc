/**
 * The one order of every list of the API (sessions, digital humans): newest first, equal creation times
 * by id descending, and a page's position in it. Every store sorts by it, so a cursor means the same in
 * each, wherever the next page comes from.
 */

/** Where a page of a list starts: after the item with this creation time and id. */
export interface ListPosition {
  createdAtMs: number;
  id: string;
}

/**
 * The order of every list: newest first, equal creation times by id descending. Every store sorts by it,
 * so a cursor means the same in each.
 */
export function newestFirst(a: ListPosition, b: ListPosition): number {
  return b.createdAtMs - a.createdAtMs || (b.id > a.id ? 1 : b.id < a.id ? -1 : 0);
}

/** Whether an entry comes after the cursor in that order (so it belongs to a later page). */
export function isAfterCursor(entry: ListPosition, cursor: ListPosition | undefined): boolean {
  return cursor === undefined || newestFirst(cursor, entry) < 0;
}
