/**
 * What the account's knowledge costs (contract guide, "Knowledge"), on a database of its own on the
 * machine's PostgreSQL: a second service like the measured one, on the same Redis under its own key
 * prefix, with DATABASE_URL. Markdown documents of generated English (words of Zipf-like frequencies
 * from a vocabulary with a long tail of rare names, a heading every few paragraphs, every paragraph long
 * enough to be a passage of its own) are added one at a time, each read until it is ready, until the
 * account has 1 000, 10 000 and 100 000 passages (BENCH_KNOWLEDGE_MAX_CHUNKS caps them):
 *
 * - ingestion: passages made ready per second (a document's create, upload included, to its `ready`),
 *   the service's CPU per passage, and the bytes on disk per passage once VACUUM ANALYZE has run (the
 *   document_chunks table with its TOAST and every index: the primary key and the words' GIN; the
 *   documents table, which keeps each document's content, beside it);
 * - retrieval: at each size, a digital human of the account's newest documents (at most 100, the most it
 *   may list: documents of 1 000 passages each, so 100 of them hold 100 000) and a session of it; the
 *   same queries of 3 to 8 words (half of common words alone, half with a rare one) one after another,
 *   first by searchKnowledge (the customer's API key), then by searchSessionKnowledge (the digital human's
 *   token, as its job searches each turn): p50 and p95 of the request to its answer.
 *
 * Everything random is seeded: every run adds the same documents and asks the same questions.
 */
import { type ChildProcess, execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { createDatabase, digitalHumanToken, freePort } from "@dhs/testkit";
import pg from "pg";
import { cpuUsOf } from "./figures.js";
import { here, LIVEKIT } from "./settings.js";
import { KNOWLEDGE, type Stack, startService } from "./stack.js";

/** The most passages the account gets (the last size measured); 100 000 = 100 documents of 1 000. */
const MAX_CHUNKS = Number(process.env.BENCH_KNOWLEDGE_MAX_CHUNKS ?? 100_000);
/** Queries measured at each size by each operation (after WARMUP_QUERIES not measured). */
const QUERIES = Number(process.env.BENCH_KNOWLEDGE_QUERIES ?? 200);
const WARMUP_QUERIES = 20;
/** The sizes at which retrieval is measured: those within the cap, and the cap itself. */
const SIZES = [...new Set([...[1_000, 10_000, 100_000].filter((size) => size < MAX_CHUNKS), MAX_CHUNKS])];
/** Passages (paragraphs) per document: 100 documents, the most a digital human lists, hold 100 000. */
const PASSAGES_PER_DOCUMENT = Math.min(1_000, SIZES[0] as number);
/** The most documents a digital human lists (its `knowledge.document_ids`). */
const DIGITAL_HUMAN_DOCUMENTS = 100;
/** The job's participant identity in its token. */
const JOB = "agent-ava";

const run = promisify(execFile);

export interface KnowledgeLatency {
  p50Ms: number;
  p95Ms: number;
  /** p95 of the queries of common words alone, and of those with a rare word. */
  commonP95Ms: number;
  rareP95Ms: number;
  /** Passages answered per query, on average, and the queries answered none. */
  meanPassages: number;
  empty: number;
  /** Answers other than 200 (say, 503 on the database's statement timeout), by status. */
  errors: Record<string, number>;
}

export interface KnowledgeSize {
  /** Passages the account has, and in how many documents. */
  chunks: number;
  documents: number;
  /** The documents added since the last size: their passages, and passages made ready per second. */
  added: number;
  perS: number;
  /** A create's answer (the upload and the store) and its document's `ready` after it, at the median. */
  createMsP50: number;
  readyMsP50: number;
  /** The service's CPU per passage added (the creates' parsing, the processing, the reads until ready). */
  serviceCpuUsPerChunk: number;
  disk: {
    /** document_chunks all told (pg_total_relation_size: heap, TOAST, free space and visibility maps, indexes), per passage. */
    perChunk: number;
    heap: number;
    toast: number;
    /** The primary key (owner, document_id, idx). */
    primaryKey: number;
    /** The words' GIN index, its pending list flushed by VACUUM. */
    gin: number;
    /** The documents table (each document's content kept, TOAST-compressed), per passage. */
    documentsPerChunk: number;
    /** A passage's text, in characters, and its tsvector's bytes, on average. */
    textChars: number;
    tsvectorBytes: number;
  };
  /** Passages searched: the digital human's documents (at most 100). */
  searched: number;
  api: KnowledgeLatency;
  job: KnowledgeLatency;
}

export interface KnowledgeFigures {
  passagesPerDocument: number;
  /** A document's content, UTF-8 bytes on average. */
  documentBytes: number;
  queries: number;
  sizes: KnowledgeSize[];
}

// ---------------------------------------------------------------------------------------------------
// Text: seeded, Zipf-like, English.

/** mulberry32: a small seeded generator, so every run writes the same documents and queries. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** English's most frequent words, nearly all of them the english configuration's stop words (no lexemes). */
const FUNCTION_WORDS = `the of and to a in is it that for you was with on as are be this have from or at by not but what all were
we when your can there an which their if do will each about how up out them then some so these would other into has more our any
only its before after over most very own same few such both between through during while where why again further here once no
nor too just should than they he me my us off under until because below above down`.split(/\s+/);

/** Content words, roughly most frequent first: everyday English and what a business's documents speak of. */
const CONTENT_WORDS = `time year people way day thing life world family place week company system question work number night point
home water room area money fact month right book hour job word business issue side kind house service friend power end member city
community name team minute idea information back level office door health person change morning reason research moment guest
say get make go know take see come think look want give use find tell ask seem feel try leave call keep provide hold bring begin
good new first last long great little old big high different small large next early young important public able free full open
available early late best clear ready special easy possible local main certain recent private personal short whole simple
breakfast lunch dinner restaurant menu hotel reservation booking arrival departure parking wifi password pool sauna spa gym towel
luggage reception lobby elevator floor suite balcony view terrace garden shuttle airport train station taxi ticket price rate
discount invoice payment card refund cancellation policy deposit fee charge tax receipt account order delivery shipping package
return warranty repair replacement product model battery charger cable screen software update version install setting device
printer router network connection signal support manual guide instruction step error message problem fault light button switch
cord plug adapter temperature heating cooling window curtain blanket pillow bed mattress shower bath toilet kitchen fridge coffee
tea kettle snack bar wine beer juice allergy vegetarian vegan gluten dairy nut children pet dog cat accessible wheelchair ramp
stairs entrance exit emergency fire alarm safety security lock key code locker storage laundry iron cleaning housekeeping
maintenance noise quiet schedule opening closing holiday weekend season summer winter spring autumn evening afternoon midnight noon
monday tuesday wednesday thursday friday saturday sunday distance walk bus tram ferry bicycle rental map museum beach mountain lake
river forest park castle church market shop store pharmacy hospital doctor clinic bank cash currency exchange language english
french german spanish italian staff manager desk phone email address contact form request complaint feedback review rating star
member loyalty points reward voucher gift offer package deal upgrade view quiet sea city courtyard double single twin family
extra crib sofa capacity adult infant age identity passport visa document signature copy printout photo camera television remote
channel radio music concert theatre cinema tour guide excursion boat island harbour bridge tower square street road avenue corner
block building level basement roof rooftop view sunset sunrise weather rain snow wind storm umbrella coat shoes clothes dress
uniform bag suitcase backpack trolley porter valet driver car van vehicle charging electric fuel diesel highway toll border
journey trip travel vacation visit stay night check late early express standard premium basic deluxe executive conference meeting
event wedding party celebration birthday anniversary banquet catering buffet course dish plate glass bottle cup bowl fork knife
spoon napkin table chair seat terrace outdoor indoor heated covered shaded sunny warm cold hot cool fresh clean dirty broken
missing lost found damaged replaced fixed cleaned changed moved cancelled confirmed booked paid refunded delayed included optional
required allowed forbidden limited unlimited daily weekly monthly yearly hourly nightly per person group children adults seniors
students staff employees customers clients visitors residents neighbours owners tenants partners suppliers contractors
insurance claim coverage liability contract agreement terms conditions notice period renewal subscription plan tier invoice
billing statement balance credit debit transfer wire online portal app login username profile settings notification alert
reminder confirmation summary detail report history record log backup restore reset reboot restart upgrade downgrade migrate
export import download upload share sync folder file format size limit quota storage memory speed performance bandwidth latency
outage incident status maintenance window downtime uptime availability region zone server cloud data privacy consent cookie
tracking analytics marketing newsletter campaign promotion coupon sale clearance stock inventory warehouse supplier catalogue
item quantity unit weight length width height colour color material fabric cotton wool leather wood metal steel glass plastic
paper cardboard box envelope label barcode serial tracking courier postal mail parcel pickup dropoff collection point locker
opening hours lunchtime weekday weekend public holiday christmas easter new year eve season peak offpeak busy crowded calm
`
  .split(/\s+/)
  .filter((word) => word !== "");

/** Syllables of the long tail's names: places, people, products and codes a business's documents name. */
const SYLLABLES = `ka lo mi ren dor vel sa tor an bri quel mar is ton ev ur zan pel gri hol wyn cor da fen ash bel cas dun el
fal gar hal ith jor kel lan mor nal or pra rim sel tha ul vor wen yar zel ost rak`.split(/\s+/);

interface Vocabulary {
  /** The text's words, most frequent first (function words, then content words), and their cumulative weights. */
  words: string[];
  cumulative: Float64Array;
  /** The content words alone, for queries, with their own cumulative weights. */
  content: string[];
  contentCumulative: Float64Array;
  /** The long tail: rare names, each Zipf-weighted within the tail. */
  tail: string[];
  tailCumulative: Float64Array;
}

/**
 * Cumulative Zipf weights of `n` ranks, normalized to 1: 1/(rank + q), Mandelbrot's shift q flattening
 * the head (with 2.7, as fits English, "the" is about 5% of the words rather than 14%).
 */
function zipf(n: number, q = 0): Float64Array {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let rank = 1; rank <= n; rank++) {
    sum += 1 / (rank + q);
    cumulative[rank - 1] = sum;
  }
  for (let i = 0; i < n; i++) cumulative[i] = (cumulative[i] as number) / sum;
  return cumulative;
}

function draw(words: readonly string[], cumulative: Float64Array, r: number): string {
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((cumulative[mid] as number) < r) low = mid + 1;
    else high = mid;
  }
  return words[low] as string;
}

function vocabulary(): Vocabulary {
  const content = [...new Set(CONTENT_WORDS)].filter((word) => !FUNCTION_WORDS.includes(word));
  const words = [...FUNCTION_WORDS, ...content];
  const next = random(7);
  const tail = new Set<string>();
  while (tail.size < 20_000) {
    const count = 2 + Math.floor(next() * 2);
    let name = "";
    for (let i = 0; i < count; i++) name += SYLLABLES[Math.floor(next() * SYLLABLES.length)];
    tail.add(name);
  }
  return {
    words,
    cumulative: zipf(words.length, 2.7),
    content,
    contentCumulative: zipf(content.length),
    tail: [...tail],
    tailCumulative: zipf(tail.size),
  };
}

const VOCABULARY = vocabulary();

const capital = (word: string) => `${word[0]?.toUpperCase()}${word.slice(1)}`;

/** Documents and queries drawn from one vocabulary, by one seeded generator each. */
class Writer {
  private readonly next: () => number;

  constructor(
    private readonly vocab: Vocabulary,
    seed: number,
  ) {
    this.next = random(seed);
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** A name of the tail (capitalized, as a proper noun is), by its frequency. */
  private name(): string {
    return capital(draw(this.vocab.tail, this.vocab.tailCumulative, this.next()));
  }

  /** Any name of the tail alike: most are rare, found in a few passages of 100 000 or none. */
  private rare(): string {
    return capital(this.vocab.tail[Math.floor(this.next() * this.vocab.tail.length)] as string);
  }

  /** One word of running text: mostly the Zipf-weighted vocabulary, now and then a rare name or a number. */
  private word(): string {
    const r = this.next();
    if (r < 0.06) return this.name();
    if (r < 0.08) return this.next() < 0.5 ? String(this.int(1, 500)) : `${this.int(1, 99)}.${this.int(10, 99)}`;
    return draw(this.vocab.words, this.vocab.cumulative, this.next());
  }

  private sentence(): string {
    const words = Array.from({ length: this.int(8, 22) }, () => this.word());
    if (words.length > 12 && this.next() < 0.4) words[this.int(4, words.length - 4)] += ",";
    const end = this.next() < 0.9 ? "." : this.next() < 0.5 ? "?" : "!";
    return `${capital(words.join(" "))}${end}`;
  }

  /**
   * A paragraph of 380 to about 850 characters: two of them together are longer than a passage's 700, and
   * one is shorter than the 1 000 at which it would be cut, so each is a passage of its own.
   */
  private paragraph(): string {
    const target = this.int(380, 620);
    let text = "";
    while (text.length < target) text = text === "" ? this.sentence() : `${text} ${this.sentence()}`;
    return text;
  }

  heading(): string {
    const words = Array.from({ length: this.int(2, 5) }, () =>
      this.next() < 0.15 ? this.name() : draw(this.vocab.content, this.vocab.contentCumulative, this.next()),
    );
    return words.map(capital).join(" ");
  }

  /** A Markdown document of `paragraphs` paragraphs: a title, a section every 3 to 7, now and then a subsection. */
  document(paragraphs: number): { name: string; content: string } {
    const name = this.heading();
    const lines = [`# ${name}`, ""];
    let untilHeading = 0;
    for (let i = 0; i < paragraphs; i++) {
      if (untilHeading === 0) {
        lines.push(`${this.next() < 0.25 ? "###" : "##"} ${this.heading()}`, "");
        untilHeading = this.int(3, 7);
      }
      lines.push(this.paragraph(), "");
      untilHeading -= 1;
    }
    return { name, content: lines.join("\n") };
  }

  /**
   * A question of 3 to 8 words: half of them a question word (a stop word, as a spoken question has), the
   * rest content words by their frequency; a `rare` one has one or two of them rare (any name of the tail
   * alike, or any content word out of the 300 most frequent).
   */
  query(rare: boolean): string {
    const length = this.int(3, 8);
    const words: string[] = this.next() < 0.5 ? [["what", "where", "how", "when", "can", "is", "do"][this.int(0, 6)] as string] : [];
    while (words.length < length) words.push(draw(this.vocab.content, this.vocab.contentCumulative, this.next()));
    if (rare) {
      for (let i = 0, n = this.int(1, 2); i < n; i++) {
        const at = this.int(words.length > 3 ? 1 : 0, words.length - 1);
        const content = this.vocab.content;
        words[at] = this.next() < 0.5 ? this.rare() : (content[this.int(Math.min(300, content.length - 1), content.length - 1)] as string);
      }
    }
    return words.join(" ");
  }
}

// ---------------------------------------------------------------------------------------------------
// The measurement.

const percentile = (sorted: readonly number[], q: number) =>
  Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN).toFixed(2));
const sortedOf = (values: readonly number[]) => [...values].sort((a, b) => a - b);

export async function measureKnowledge(stack: Stack): Promise<KnowledgeFigures> {
  const database = await createDatabase({ prefix: "dhs_bench" });
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  // Idle connections end with the database's drop at the end.
  db.on("error", () => undefined);
  let service: ChildProcess | undefined;
  try {
    await run("pnpm", ["--filter", "@dhs/server", "migrate"], { cwd: here("../.."), env: { ...process.env, DATABASE_URL: database.url } });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    service = await startService(
      stack.service.args.filter((arg) => !arg.startsWith("--cpu-prof")),
      { ...stack.service.env, PORT: String(port), METRICS_PORT: "0", REDIS_KEY_PREFIX: "knowledge", DATABASE_URL: database.url },
      join(stack.service.dir, "knowledge-service.log"),
      url,
    );
    const pid = service.pid as number;
    const headers = { authorization: `Bearer ${KNOWLEDGE.key}`, "content-type": "application/json" };
    const post = async (path: string, body: unknown): Promise<{ id: string; room_name: string }> => {
      const res = await fetch(`${url}${path}`, {
        method: "POST",
        headers: { ...headers, "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
      return (await res.json()) as { id: string; room_name: string };
    };

    const writer = new Writer(VOCABULARY, 1);
    const asker = new Writer(VOCABULARY, 2);
    const queries = Array.from({ length: WARMUP_QUERIES + QUERIES }, (_, i) => ({ rare: i % 2 === 1, text: "" }));
    for (const query of queries) query.text = asker.query(query.rare);

    const ids: string[] = [];
    let chunks = 0;
    let contentBytes = 0;
    const sizes: KnowledgeSize[] = [];
    for (const size of SIZES) {
      // Documents, one at a time, each created and then read until it is ready.
      const createMs: number[] = [];
      const readyMs: number[] = [];
      const from = chunks;
      const cpuFrom = cpuUsOf(pid);
      let seconds = 0;
      while (chunks < size) {
        const { name, content } = writer.document(Math.min(PASSAGES_PER_DOCUMENT, size - chunks));
        contentBytes += Buffer.byteLength(content);
        const started = performance.now();
        const { id } = await post("/v1/documents", { name, format: "markdown", language: "en", content });
        const created = performance.now();
        let document: { status: string; chunks: number; error: string | null };
        for (;;) {
          const res = await fetch(`${url}/v1/documents/${id}`, { headers });
          document = (await res.json()) as typeof document;
          if (res.status !== 200) throw new Error(`getDocument answered ${res.status}: ${JSON.stringify(document)}`);
          if (document.status !== "processing") break;
          // A processing pass that fails (a statement past DATABASE_STATEMENT_TIMEOUT_MS) is retried only
          // once its 60 s lease lapses, and would fail again: said, rather than waited for forever.
          if (performance.now() - created > 150_000)
            throw new Error(`document ${id} still processing after 150 s: see knowledge-service.log in ${stack.service.dir}`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        const ready = performance.now();
        if (document.status !== "ready") throw new Error(`document ${id} is ${document.status}: ${document.error}`);
        seconds += (ready - started) / 1000;
        createMs.push(created - started);
        readyMs.push(ready - created);
        chunks += document.chunks;
        ids.push(id);
      }
      const serviceCpuUsPerChunk = Math.round((cpuUsOf(pid) - cpuFrom) / Math.max(1, chunks - from));
      const disk = await diskOf(db);
      process.stdout.write(`knowledge: ${chunks} passages in ${ids.length} documents, ${Math.round((chunks - from) / seconds)}/s\n`);

      // The newest documents, as many as a digital human lists, and a session of it.
      const documentIds = ids.slice(-DIGITAL_HUMAN_DOCUMENTS);
      const dh = await post("/v1/digital-humans", { name: `Knowledge ${size}`, knowledge: { document_ids: documentIds } });
      const searched = Number(
        (await db.query<{ n: string }>("SELECT count(*) AS n FROM document_chunks WHERE document_id = ANY($1)", [documentIds])).rows[0]?.n,
      );
      const api = await latencies(queries, `${url}/v1/digital-humans/${dh.id}/knowledge/search`, `Bearer ${KNOWLEDGE.key}`);
      // The session only now: no digital human ever joins it, and it is cancelled SESSION_JOIN_TIMEOUT_S
      // (600 s) after its create, which slow searches at 100 000 passages could otherwise reach.
      const session = await post("/v1/sessions", { digital_human_id: dh.id, participant_identity: "bench-user" });
      const token = await digitalHumanToken(session.room_name, { identity: JOB, apiKey: LIVEKIT.key, secret: LIVEKIT.secret, ttl: 3600 });
      const job = await latencies(queries, `${url}/v1/sessions/${session.id}/conversation/knowledge`, `Bearer ${token}`);
      const sorted = sortedOf(createMs);
      sizes.push({
        chunks,
        documents: ids.length,
        added: chunks - from,
        perS: Math.round((chunks - from) / seconds),
        createMsP50: percentile(sorted, 0.5),
        readyMsP50: percentile(sortedOf(readyMs), 0.5),
        serviceCpuUsPerChunk,
        disk,
        searched,
        api,
        job,
      });
    }
    return { passagesPerDocument: PASSAGES_PER_DOCUMENT, documentBytes: Math.round(contentBytes / ids.length), queries: QUERIES, sizes };
  } finally {
    service?.kill("SIGTERM");
    await db.end();
    await database.drop();
  }
}

/** What document_chunks holds on disk once VACUUM ANALYZE has run (the GIN's pending list flushed), per passage. */
async function diskOf(db: pg.Pool): Promise<KnowledgeSize["disk"]> {
  await db.query("VACUUM ANALYZE document_chunks, documents");
  const { rows } = await db.query<Record<string, string>>(`
    SELECT (SELECT count(*) FROM document_chunks) AS n,
      pg_total_relation_size(c.oid) AS total, pg_relation_size(c.oid) AS heap,
      coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0) AS toast,
      pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm') AS maps,
      (SELECT pg_relation_size(indexrelid) FROM pg_index WHERE indrelid = c.oid AND indisprimary) AS pkey,
      (SELECT sum(pg_relation_size(i.indexrelid)) FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
        JOIN pg_am am ON am.oid = ic.relam WHERE i.indrelid = c.oid AND am.amname = 'gin') AS gin,
      pg_total_relation_size('documents') AS documents,
      (SELECT avg(length(text)) FROM document_chunks) AS chars,
      (SELECT avg(pg_column_size(tsv)) FROM document_chunks) AS tsv
    FROM pg_class c WHERE c.oid = 'document_chunks'::regclass`);
  const row = rows[0] as Record<string, string>;
  const n = Math.max(1, Number(row.n));
  const per = (field: string) => Math.round(Number(row[field]) / n);
  return {
    perChunk: per("total"),
    heap: per("heap"),
    toast: per("toast"),
    primaryKey: per("pkey"),
    gin: per("gin"),
    documentsPerChunk: per("documents"),
    textChars: Math.round(Number(row.chars)),
    tsvectorBytes: Math.round(Number(row.tsv)),
  };
}

/** The queries one after another (the first WARMUP_QUERIES not measured): each request to its answer. */
async function latencies(
  queries: readonly { rare: boolean; text: string }[],
  url: string,
  authorization: string,
): Promise<KnowledgeLatency> {
  const times: { ms: number; rare: boolean }[] = [];
  const errors: Record<string, number> = {};
  let passages = 0;
  let empty = 0;
  for (const [i, query] of queries.entries()) {
    const started = performance.now();
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify({ query: query.text, limit: 3 }),
    });
    const answer = (await res.json()) as { results?: unknown[] };
    const ms = performance.now() - started;
    if (i < WARMUP_QUERIES) continue;
    times.push({ ms, rare: query.rare });
    if (res.status !== 200) {
      errors[res.status] = (errors[res.status] ?? 0) + 1;
      continue;
    }
    const found = answer.results?.length ?? 0;
    passages += found;
    if (found === 0) empty += 1;
  }
  const all = sortedOf(times.map((t) => t.ms));
  const answered = times.length - Object.values(errors).reduce((sum, n) => sum + n, 0);
  return {
    p50Ms: percentile(all, 0.5),
    p95Ms: percentile(all, 0.95),
    commonP95Ms: percentile(sortedOf(times.filter((t) => !t.rare).map((t) => t.ms)), 0.95),
    rareP95Ms: percentile(sortedOf(times.filter((t) => t.rare).map((t) => t.ms)), 0.95),
    meanPassages: Number((passages / Math.max(1, answered)).toFixed(2)),
    empty,
    errors,
  };
}

export function knowledgeSection(k: KnowledgeFigures): string {
  const errors = (latency: KnowledgeLatency) =>
    Object.entries(latency.errors)
      .map(([status, n]) => `${n}× ${status}`)
      .join(", ") || "none";
  return [
    "## Knowledge: documents into passages, and their search (PostgreSQL)",
    "",
    `A service like the measured one on a database of its own. Markdown documents of ${k.passagesPerDocument} paragraphs (${Math.round(k.documentBytes / 1024)} KiB each on average) of generated English: words of Zipf-like frequencies (${VOCABULARY.words.length - VOCABULARY.content.length} stop words, ${VOCABULARY.content.length} content words, a tail of ${VOCABULARY.tail.length} names, some numbers), a heading every 3 to 7 paragraphs, every paragraph (380 to about 850 characters) a passage of its own. They are added one at a time, each created and then read until ready, until the account has each size. Passages per second: the passages added over the time from each create (the upload included) to its document's ready. Service CPU: the service's over the adding, per passage (its parse of the upload, the splitting, the reads until ready; PostgreSQL's own CPU is not in it). Bytes per passage: document_chunks after VACUUM ANALYZE (which flushes the GIN's pending list), pg_total_relation_size: its heap, TOAST, free space and visibility maps and its indexes (the primary key and the words' GIN), over its rows; the documents table (each document's content kept, compressed) beside it.`,
    "",
    "| passages | documents | added | passages/s | create ms p50 | then ready ms p50 | service CPU µs/passage | bytes/passage on disk | heap | TOAST | primary key | GIN | documents table bytes/passage | passage chars | tsvector bytes |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...k.sizes.map(
      (s) =>
        `| ${s.chunks} | ${s.documents} | ${s.added} | ${s.perS} | ${s.createMsP50} | ${s.readyMsP50} | ${s.serviceCpuUsPerChunk} | ${s.disk.perChunk} | ${s.disk.heap} | ${s.disk.toast} | ${s.disk.primaryKey} | ${s.disk.gin} | ${s.disk.documentsPerChunk} | ${s.disk.textChars} | ${s.disk.tsvectorBytes} |`,
    ),
    "",
    `Retrieval at each size: a digital human of the account's newest documents (at most ${DIGITAL_HUMAN_DOCUMENTS}, the most it may list; "searched" counts their passages) and a session of it. ${k.queries} queries of 3 to 8 words (after ${WARMUP_QUERIES} not measured), the same at every size, half of common words alone and half with one or two rare ones (a name of the tail, or a content word past the 300 most frequent), limit 3, one after another: first searchKnowledge (the API key), then searchSessionKnowledge (the digital human's token, as its job searches each turn). The request to its answer on loopback, on this machine.`,
    "",
    "| passages | searched | operation | p50 ms | p95 ms | p95 ms, common words | p95 ms, a rare word | passages answered (mean) | queries answered none | errors |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...k.sizes.flatMap((s) =>
      (
        [
          ["searchKnowledge", s.api],
          ["searchSessionKnowledge", s.job],
        ] as const
      ).map(
        ([operation, l]) =>
          `| ${s.chunks} | ${s.searched} | ${operation} | ${l.p50Ms} | ${l.p95Ms} | ${l.commonP95Ms} | ${l.rareP95Ms} | ${l.meanPassages} | ${l.empty} | ${errors(l)} |`,
      ),
    ),
  ].join("\n");
}
