/** The knowledge store's port contract (test/support) against the memory store and its Orama index. */
import { describeKnowledgeStore } from "../../../test/support/knowledge-store-contract.js";
import { MemoryKnowledgeStore } from "./knowledge-store.js";

describeKnowledgeStore("memory", async () => ({ store: new MemoryKnowledgeStore(), close: async () => undefined }));
