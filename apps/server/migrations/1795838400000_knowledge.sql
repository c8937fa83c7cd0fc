-- Up Migration

-- The accounts' documents (contract: Knowledge), each under its owner (an account, or its test side),
-- stored `processing` with its content and processed later by whichever replica claims it
-- (src/store/postgres/knowledge-store.ts). The content is kept once processed: it is read only by a
-- claim, TOAST keeps it compressed out of line, and it is what a document is processed again from (a
-- better splitter, another index) without asking the account for it again. `config` is the text search
-- configuration of its `language` (src/domain/knowledge/languages.ts), fixed when it is made.
CREATE TABLE documents (
  owner text NOT NULL,
  -- COLLATE "C": ids compare as the API's list order does (code units), ties of a creation time included.
  id text COLLATE "C" NOT NULL,
  name text NOT NULL,
  format text NOT NULL,
  language text NOT NULL,
  config regconfig NOT NULL,
  status text NOT NULL CHECK (status IN ('processing', 'ready', 'failed')),
  error text,
  size_bytes integer NOT NULL,
  chunks integer NOT NULL DEFAULT 0,
  content text NOT NULL,
  -- The token of the replica's claim that processes it, and until when that claim holds (a lease).
  claim text,
  claimed_until timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (owner, id)
);

-- listDocuments: newest first, ties by id.
CREATE INDEX documents_newest ON documents (owner, created_at DESC, id DESC);
-- The claims of every replica: the few documents still processing, oldest first.
CREATE INDEX documents_processing ON documents (created_at, claimed_until) WHERE status = 'processing';

-- The Idempotency-Keys of the owners' creates and what each made, until it expires. A key outlives its
-- document: its replay then tells the document was deleted since.
CREATE TABLE document_keys (
  owner text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  document_id text COLLATE "C" NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (owner, key)
);

-- A ready document's passages, in its order, each with its words as lexemes of the document's
-- configuration (its first line, the heading, weighted A; the rest B), searched through the GIN index.
CREATE TABLE document_chunks (
  owner text NOT NULL,
  document_id text COLLATE "C" NOT NULL,
  idx integer NOT NULL,
  text text NOT NULL,
  tsv tsvector NOT NULL,
  PRIMARY KEY (owner, document_id, idx),
  FOREIGN KEY (owner, document_id) REFERENCES documents (owner, id) ON DELETE CASCADE
);

CREATE INDEX document_chunks_words ON document_chunks USING gin (tsv);

-- How many of an owner's passages hold each lexeme, per configuration: a word's rarity for that owner.
-- A search ranks only the passages that hold the question's rarest lexemes (passage-search.ts), so its
-- cost does not grow with the passages that share a common word with the question. Counted as passages
-- are stored, uncounted as they are deleted, under the owner's lock.
CREATE TABLE document_lexemes (
  owner text NOT NULL,
  config regconfig NOT NULL,
  lexeme text NOT NULL,
  passages integer NOT NULL,
  PRIMARY KEY (owner, config, lexeme)
);

-- Down Migration
DROP TABLE document_lexemes;
DROP TABLE document_chunks;
DROP TABLE document_keys;
DROP TABLE documents;
