/**
 * The digital humans an account may use (contract guide, "Digital humans"): the deployment's stock ones
 * and the account's own, made, read, listed, changed and deleted here, and the persona a new session
 * takes from one of them. An account's own belong to the mode of the key that made them (the principal's
 * data owner), so another account's, or the other mode's, is not found, exactly like an unknown id.
 */
import type {
  DigitalHumanCreate,
  DigitalHumanDeleted,
  DigitalHumanKind,
  DigitalHumanUpdate,
  DigitalHuman as DigitalHumanView,
  Voice as VoiceView,
} from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import { untilWritten } from "../contention.js";
import type { WebhookStore } from "../customer-webhooks/ports.js";
import type { KnowledgeStore } from "../knowledge/ports.js";
import { fingerprint } from "../sessions/idempotency.js";
import type { DigitalHumanCatalog } from "./digital-human-catalog.js";
import { type FieldRules, fieldsOfCreate, fieldsOfUpdate } from "./digital-human-fields.js";
import { customView, stockView } from "./digital-human-view.js";
import { customPersona, type Persona, stockPersona } from "./persona.js";
import type { DigitalHumanRecord, DigitalHumanStore } from "./ports.js";

/** Where a page of the list starts: after one of the account's own, or after a stock one. */
export type DigitalHumanPosition = { kind: "custom"; createdAtMs: number; id: string } | { kind: "stock"; id: string };

export interface DigitalHumanServiceDeps {
  store: DigitalHumanStore;
  catalog: DigitalHumanCatalog;
  /** How many digital humans of its own an account may have in each mode. */
  limit: () => number;
  /** The longest a session of an account's may stay active in a mode (s). */
  maxSessionDurationS: (principal: Principal) => number;
  idempotencyKeyTtlMs: number;
  /** Where a webhook tool's endpoint_id is looked up: the account's, in the key's mode. */
  endpoints: Pick<WebhookStore, "getEndpoint">;
  /** Where `knowledge.document_ids` are looked up: the account's, in the key's mode. */
  documents: Pick<KnowledgeStore, "existingDocuments">;
  /** What its sessions remember about participants, forgotten with it. */
  memories?: { forgetDigitalHuman(owner: string, digitalHumanId: string): Promise<void> };
  now?: () => Date;
}

export class DigitalHumanService {
  private readonly now: () => Date;

  constructor(private readonly deps: DigitalHumanServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async create(
    principal: Principal,
    idempotencyKey: string,
    body: DigitalHumanCreate,
  ): Promise<{ view: DigitalHumanView; replayed: boolean }> {
    const { store, limit, idempotencyKeyTtlMs } = this.deps;
    const at = this.now().toISOString();
    const record: DigitalHumanRecord = {
      id: crypto.randomUUID(),
      owner: principal.accountId,
      ...fieldsOfCreate(body, this.rules(principal)),
      created_at: at,
      updated_at: at,
    };
    await this.refuseUnknownEndpoints(principal, record);
    await this.refuseUnknownDocuments(principal, record);
    const max = limit();
    const outcome = await store.createDigitalHuman({
      record,
      idempotencyKey,
      fingerprint: fingerprint(body),
      keyTtlMs: idempotencyKeyTtlMs,
      limit: max,
    });
    switch (outcome.kind) {
      case "created":
        return { view: customView(outcome.record), replayed: false };
      case "in_progress":
        throw new AppError(
          "idempotency_request_in_progress",
          "A request with this Idempotency-Key is still being processed; retry after 1 s.",
          {
            retryAfterSeconds: 1,
          },
        );
      case "limit":
        throw new AppError("digital_human_limit_reached", { limit: max });
      case "reused":
        throw new AppError("idempotency_key_reused", "This Idempotency-Key was already used with a different request body.");
      case "replay": {
        const made = await store.getDigitalHuman(principal.accountId, outcome.id);
        if (!made) throw new AppError("not_found", `The digital human this Idempotency-Key created, ${outcome.id}, was deleted since.`);
        return { view: customView(made.record), replayed: true };
      }
    }
  }

  /** A page of the account's own (newest first), then of the stock ones (in the catalog's order). */
  async list(
    principal: Principal,
    query: { kind?: DigitalHumanKind | undefined; limit: number; after?: DigitalHumanPosition | undefined },
  ): Promise<{ items: DigitalHumanView[]; next: DigitalHumanPosition | null }> {
    const { kind, limit, after } = query;
    const items: { view: DigitalHumanView; position: DigitalHumanPosition }[] = [];
    if (kind !== "stock" && after?.kind !== "stock") {
      const own = await this.deps.store.listDigitalHumans(principal.accountId, {
        limit,
        after: after?.kind === "custom" ? after : undefined,
      });
      for (const record of own) {
        items.push({ view: customView(record), position: { kind: "custom", createdAtMs: Date.parse(record.created_at), id: record.id } });
      }
    }
    if (kind !== "custom" && items.length <= limit) {
      const stock = this.deps.catalog.forAccount(principal.account, principal.mode);
      // A cursor whose entry left the catalog since (a reload) ends the list rather than starting it again.
      const start = after?.kind === "stock" ? stock.findIndex((entry) => entry.id === after.id) + 1 || stock.length : 0;
      for (const entry of stock.slice(start, start + limit + 1 - items.length)) {
        items.push({ view: stockView(entry, this.deps.catalog, entry === stock[0]), position: { kind: "stock", id: entry.id } });
      }
    }
    const page = items.slice(0, limit);
    return { items: page.map((item) => item.view), next: items.length > limit ? (page.at(-1)?.position ?? null) : null };
  }

  /** The deployment's voices, the default first. */
  voices(): VoiceView[] {
    return this.deps.catalog.voices().map((voice, i) => ({ ...voice, default: i === 0 }));
  }

  async get(principal: Principal, id: string): Promise<DigitalHumanView> {
    const stock = this.deps.catalog.resolve(id, principal.account, principal.mode);
    if (stock)
      return stockView(stock, this.deps.catalog, stock === this.deps.catalog.resolve(undefined, principal.account, principal.mode));
    return customView((await this.own(principal, id)).record);
  }

  /** Merges the update into the stored fields and stores them, read again and merged anew if another change came first (untilWritten). */
  async update(principal: Principal, id: string, update: DigitalHumanUpdate): Promise<DigitalHumanView> {
    return untilWritten(`Digital human ${id}`, async () => {
      const { record, version } = await this.own(principal, id);
      const changed: DigitalHumanRecord = {
        ...record,
        ...fieldsOfUpdate(record, update, this.rules(principal)),
        updated_at: this.now().toISOString(),
      };
      if (update.tools !== undefined) await this.refuseUnknownEndpoints(principal, changed);
      if (update.knowledge !== undefined) await this.refuseUnknownDocuments(principal, changed);
      return (await this.deps.store.replaceDigitalHuman(changed, version)) ? { won: true, value: customView(changed) } : { won: false };
    });
  }

  async delete(principal: Principal, id: string): Promise<DigitalHumanDeleted> {
    this.refuseStock(principal, id);
    const forget = () => this.deps.memories?.forgetDigitalHuman(principal.accountId, id);
    // Its memories go first, so that a failure leaves it to be deleted again rather than memories nobody
    // can reach; and again after, for one an analysis kept in between (which checks it still exists).
    await forget();
    if (!(await this.deps.store.deleteDigitalHuman(principal.accountId, id))) throw notFound(id);
    await forget();
    return { id, deleted: true };
  }

  /**
   * The persona a new session of the account takes: of the digital human `id` (a stock one or one of the
   * account's own in the key's mode), or of the account's default when none is given. Undefined when
   * there is none the account may use, or when one of its own has an appearance the account may no
   * longer use: a session is never given a face the operator took away.
   */
  async personaFor(principal: Principal, id: string | undefined): Promise<Persona | undefined> {
    const { catalog } = this.deps;
    const stock = catalog.resolve(id, principal.account, principal.mode);
    if (stock) return stockPersona(stock, catalog);
    if (id === undefined) return undefined;
    const own = await this.deps.store.getDigitalHuman(principal.accountId, id.toLowerCase());
    const appearance = own && catalog.resolve(own.record.appearance, principal.account, principal.mode);
    return own && appearance ? customPersona(own.record, appearance) : undefined;
  }

  /** The documents a digital human answers from: none for a stock one; undefined when the account may use no such digital human. */
  async knowledgeOf(principal: Principal, id: string): Promise<readonly string[] | undefined> {
    if (this.deps.catalog.resolve(id, principal.account, principal.mode)) return [];
    const own = await this.deps.store.getDigitalHuman(principal.accountId, id);
    return own ? (own.record.knowledge?.document_ids ?? []) : undefined;
  }

  /** One of the account's own, in the key's mode; a stock one is read-only, anything else is not found. */
  private async own(principal: Principal, id: string) {
    this.refuseStock(principal, id);
    const stored = await this.deps.store.getDigitalHuman(principal.accountId, id);
    if (!stored) throw notFound(id);
    return stored;
  }

  /**
   * Its documents must be the account's in the key's mode: another account's, or the other mode's, is
   * refused exactly like one that does not exist (the store finds only the owner's).
   */
  private async refuseUnknownDocuments(principal: Principal, record: DigitalHumanRecord): Promise<void> {
    const ids = record.knowledge?.document_ids ?? [];
    if (ids.length === 0) return;
    const found = await this.deps.documents.existingDocuments(principal.accountId, ids);
    const reason = `is not a document of your account in ${principal.mode} mode`;
    const issues = ids.flatMap((id, i) =>
      found.has(id) ? [] : [{ location: "body", path: `knowledge.document_ids.${i}`, message: reason }],
    );
    if (issues.length > 0) throw new AppError("validation_failed", issues);
  }

  /**
   * A webhook tool's endpoint must be one of the account's in the key's mode: another account's, or the
   * other mode's, is refused exactly like one that does not exist (the store finds only the owner's).
   */
  private async refuseUnknownEndpoints(principal: Principal, record: DigitalHumanRecord): Promise<void> {
    const tools = record.tools ?? [];
    const found = await Promise.all(
      tools.map((tool) => (tool.type === "webhook" ? this.deps.endpoints.getEndpoint(principal.accountId, tool.endpoint_id) : true)),
    );
    const issues = tools.flatMap((tool, i) =>
      found[i] || tool.type !== "webhook"
        ? []
        : [
            {
              location: "body",
              path: `tools.${i}.endpoint_id`,
              message: `is not a webhook endpoint of your account in ${principal.mode} mode`,
            },
          ],
    );
    if (issues.length > 0) throw new AppError("validation_failed", issues);
  }

  private refuseStock(principal: Principal, id: string): void {
    if (this.deps.catalog.resolve(id, principal.account, principal.mode)) {
      throw new AppError(
        "digital_human_read_only",
        `Digital human ${id} is a stock one of the deployment; make one of your own with createDigitalHuman.`,
      );
    }
  }

  private rules(principal: Principal): FieldRules {
    return {
      catalog: this.deps.catalog,
      account: principal.account,
      mode: principal.mode,
      maxSessionDurationS: this.deps.maxSessionDurationS(principal),
    };
  }
}

function notFound(id: string): AppError {
  return new AppError("not_found", `No digital human ${id}.`);
}
