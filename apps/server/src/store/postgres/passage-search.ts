/**
 * The search of an owner's passages in PostgreSQL (contract guide, "Knowledge"), and the counts that keep
 * it bounded. A question's words are ORed (a passage need not hold every word of a question), so a
 * question with a common word matches most passages, and ranking them all grew with the account (73 ms at
 * p95 for 10 000 passages). So each owner keeps how many of its passages hold each lexeme
 * (`document_lexemes`, counted as passages are stored and uncounted as they are deleted), and a search
 * takes as candidates only the passages that hold the question's rarest lexemes, as many lexemes as keep
 * the candidates under CANDIDATES (the rarest always): the GIN index finds them, and they alone are
 * ranked, against every lexeme of the question. A passage that shares only common words with the
 * question is not a candidate: it would rank under one that holds a rare one.
 *
 * In a large account even a question's rarest word can be in thousands of passages (a question of
 * common words alone: 157 ms at p95 for 100 000 passages, ranking them all). Then the candidates are the
 * passages holding the rarest words together (`a & b`, as many as bring the count, estimated from the
 * words' counts as if they were independent, under CANDIDATES), and only when those are fewer than the
 * search's limit the passages holding the rarest word alone: the best passages hold more of its words.
 */
import type { Passage, PassageQuery } from "../../domain/knowledge/ports.js";
import { type Database, guardDatabase } from "./database.js";

/**
 * The least relevance a passage is answered with. Its score is S / (S + 1), S summing over the
 * question's words the passage holds ts_rank's weight of each: 1.0 in its heading, 0.4 in its body, a
 * word's further occurrences adding less and less (1/4, 1/9, ...), over π²/6. One body occurrence of one
 * word, the least a passage can share with the question, is S = 0.243, a score of 0.196: the floor sits
 * under it, so a passage sharing a single rare word with the question ("sauna") is answered. Words that
 * carry nothing ("what", "is") are the configuration's stop words, no lexemes, so they match nothing.
 */
export const SEARCH_FLOOR = 0.15;

/** About how many passages a search ranks at most (more only when its rarest word alone is in more). */
export const CANDIDATES = 500;

// Counted once a document's passages are stored, uncounted before they are deleted; both under the
// owner's lock (knowledge-store.ts), so two documents of one owner never update the same counts at once.
export const COUNT_LEXEMES = `
INSERT INTO document_lexemes (owner, config, lexeme, passages)
SELECT $1, $3::regconfig, lexeme, count(*)::int FROM document_chunks, unnest(tsvector_to_array(tsv)) AS lexeme
WHERE owner = $1 AND document_id = $2 GROUP BY lexeme ORDER BY lexeme
ON CONFLICT (owner, config, lexeme) DO UPDATE SET passages = document_lexemes.passages + excluded.passages`;
export const UNCOUNT_LEXEMES = `
UPDATE document_lexemes l SET passages = l.passages - gone.n FROM (
  SELECT d.config, lexeme, count(*)::int AS n
  FROM documents d JOIN document_chunks c ON c.owner = d.owner AND c.document_id = d.id, unnest(tsvector_to_array(c.tsv)) AS lexeme
  WHERE d.owner = $1 AND d.id = $2 GROUP BY d.config, lexeme
) gone
WHERE l.owner = $1 AND l.config = gone.config AND l.lexeme = gone.lexeme`;
export const FORGET_UNUSED_LEXEMES = "DELETE FROM document_lexemes WHERE owner = $1 AND passages <= 0";

// The question's lexemes in each configuration of the owner's ready documents asked for, with how many of
// the owner's passages hold each (0: none, so it matches nothing), and how many passages the owner has
// in that configuration (the counts are the owner's, so this is too).
const LEXEMES = `
WITH configs AS (SELECT DISTINCT config FROM documents WHERE owner = $1 AND id = ANY($2::text[]) AND status = 'ready')
SELECT configs.config::text AS config, q.lexeme, coalesce(l.passages, 0) AS passages,
  (SELECT coalesce(sum(chunks), 0) FROM documents t WHERE t.owner = $1 AND t.config = configs.config AND t.status = 'ready')::int AS total
FROM configs CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector(configs.config, $3))) AS q(lexeme)
LEFT JOIN document_lexemes l ON l.owner = $1 AND l.config = configs.config AND l.lexeme = q.lexeme`;

// The candidates (passages holding a lexeme of $4) of one configuration's ready documents asked for,
// ranked against every lexeme of the question ($5). ts_rank averages over the query's lexemes; times their
// number ($6), it sums over them instead, so a word more in the question does not lower a passage's
// score. Best first, then in the order the documents were asked for, then in the document's order.
const SEARCH = `
SELECT document_id, name, text, idx, place, sum / (sum + 1) AS score FROM (
  SELECT c.document_id, d.name, c.text, c.idx, array_position($2::text[], d.id::text) AS place,
    ts_rank(c.tsv, $5::tsquery) * $6 AS sum
  FROM document_chunks c JOIN documents d ON d.owner = c.owner AND d.id = c.document_id
  WHERE c.owner = $1 AND c.document_id = ANY($2::text[]) AND d.status = 'ready' AND d.config = $3::regconfig
    AND c.tsv @@ $4::tsquery
  ORDER BY sum DESC, place, c.idx LIMIT $7
) best
WHERE sum / (sum + 1) >= $8`;

type Found = { document_id: string; name: string; text: string; idx: number; place: number; score: number };
type Lexeme = { config: string; lexeme: string; passages: number; total: number };

export async function searchPassages(db: Database, query: PassageQuery): Promise<Passage[]> {
  if (query.documentIds.length === 0 || query.limit <= 0) return [];
  const ids = [...query.documentIds];
  const { rows } = await guardDatabase(() =>
    db.query<Lexeme>({ name: "knowledge-lexemes", text: LEXEMES, values: [query.owner, ids, query.text] }),
  );
  const found: Found[] = [];
  for (const [config, lexemes] of byConfig(rows)) {
    const known = lexemes.filter((l) => l.passages > 0).sort((a, b) => a.passages - b.passages);
    const rarest = known[0];
    if (rarest === undefined) continue;
    const search = async (candidates: string): Promise<Found[]> => {
      const values = [query.owner, ids, config, candidates, orQuery(known), lexemes.length, query.limit, SEARCH_FLOOR];
      // Unnamed, unlike the service's other statements: PostgreSQL plans an unnamed one with its values. A
      // named one gets, after five runs, a generic plan that cannot see how few passages the lexemes pick
      // and reads every passage of the documents by primary key (100 ms and more at 100 000 passages,
      // against 2 ms with the GIN index alone).
      return (await guardDatabase(() => db.query<Found>({ text: SEARCH, values }))).rows;
    };
    const together = rarest.passages > CANDIDATES ? rarestTogether(known) : [];
    const best = together.length > 1 ? await search(andQuery(together)) : [];
    found.push(...(best.length >= query.limit ? best : await search(orQuery(rarestUnder(known)))));
  }
  found.sort((a, b) => b.score - a.score || a.place - b.place || a.idx - b.idx);
  return found
    .slice(0, query.limit)
    .map((row) => ({ documentId: row.document_id, documentName: row.name, text: row.text, score: row.score }));
}

/** The rarest lexemes, as many as keep the passages holding any of them near CANDIDATES (the rarest always). */
function rarestUnder(known: readonly Lexeme[]): Lexeme[] {
  const narrow = known.slice(0, 1);
  let candidates = narrow[0]?.passages ?? 0;
  for (const lexeme of known.slice(1)) {
    if (candidates + lexeme.passages > CANDIDATES) break;
    narrow.push(lexeme);
    candidates += lexeme.passages;
  }
  return narrow;
}

/** The rarest lexemes whose passages together (all of them in one) are estimated under CANDIDATES. */
function rarestTogether(known: readonly Lexeme[]): Lexeme[] {
  const together: Lexeme[] = [];
  let estimate = Number.POSITIVE_INFINITY;
  for (const lexeme of known) {
    if (estimate <= CANDIDATES) break;
    estimate = together.length === 0 ? lexeme.passages : (estimate * lexeme.passages) / Math.max(1, lexeme.total);
    together.push(lexeme);
  }
  return together;
}

function byConfig<T extends { config: string }>(rows: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) groups.set(row.config, [...(groups.get(row.config) ?? []), row]);
  return groups;
}

/** Lexemes ORed, in tsquery's input syntax: each quoted, its ' and \ doubled, so no lexeme is read as an operator. */
function orQuery(lexemes: readonly { lexeme: string }[]): string {
  return lexemes.map(quoted).join(" | ");
}

function andQuery(lexemes: readonly { lexeme: string }[]): string {
  return lexemes.map(quoted).join(" & ");
}

function quoted({ lexeme }: { lexeme: string }): string {
  return `'${lexeme.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}
