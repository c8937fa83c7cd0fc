// Ships the contract with its types, so the server and tools that depend on @dhs/contract read the very
// document the types were generated from, wherever the package is installed.
import { copyFileSync, mkdirSync } from "node:fs";

mkdirSync(new URL("../dist/", import.meta.url), { recursive: true });
copyFileSync(new URL("../../../openapi/v1.yaml", import.meta.url), new URL("../dist/openapi.yaml", import.meta.url));
