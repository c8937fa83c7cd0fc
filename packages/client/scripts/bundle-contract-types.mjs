// Makes the published client stand alone: the contract's declarations (the types generated from
// openapi/v1.yaml) are copied into dist/contract/, and the client's declarations point there instead
// of at @dhs/contract, a private workspace package. The client's JavaScript imports nothing from the
// contract (its imports of it are `import type`), so only declarations need it.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const contractDist = dirname(fileURLToPath(import.meta.resolve("@dhs/contract")));

for (const file of ["index.d.ts", "generated/v1.d.ts"]) {
  mkdirSync(dirname(join(dist, "contract", file)), { recursive: true });
  copyFileSync(join(contractDist, file), join(dist, "contract", file));
}

for (const file of readdirSync(dist).filter((name) => name.endsWith(".d.ts"))) {
  const path = join(dist, file);
  const text = readFileSync(path, "utf8");
  const rewritten = text.replaceAll('"@dhs/contract"', '"./contract/index.js"');
  if (rewritten !== text) writeFileSync(path, rewritten);
}
for (const file of readdirSync(dist).filter((name) => name.endsWith(".js"))) {
  if (readFileSync(join(dist, file), "utf8").includes("@dhs/contract")) {
    throw new Error(`dist/${file} imports @dhs/contract at run time; the published client could not load it`);
  }
}
