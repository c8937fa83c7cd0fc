import { digitalHumanStoreContract } from "../../../test/contract/digital-human-store.contract.js";
import { MemoryDigitalHumanStore } from "./digital-human-store.js";

digitalHumanStoreContract("memory", async () => ({ store: new MemoryDigitalHumanStore(), close: async () => {} }));
