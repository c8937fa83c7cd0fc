// Makes the published client stand alone: what it takes from @dhs/contract, a private workspace package,
// is copied into dist/contract/ (the declarations of the types generated from openapi/v1.yaml, and the
// generated operation list, the one module of the contract the client runs), and the client's own files
// point there instead of at @dhs/contract. Nothing else of the contract may be imported at run time.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const contractDist = dirname(fileURLToPath(import.meta.resolve("@dhs/contract")));

const copied = ["index.d.ts", "generated/v1.d.ts", "generated/operations.d.ts", "generated/operations.js", "generated/operations.js.map"];
for (const file of copied) {
  mkdirSync(dirname(join(dist, "contract", file)), { recursive: true });
  copyFileSync(join(contractDist, file), join(dist, "contract", file));
}

// The longer specifier first: "@dhs/contract" is a prefix of it.
const specifiers = [
  ['"@dhs/contract/operations"', '"./contract/generated/operations.js"'],
  ['"@dhs/contract"', '"./contract/index.js"'],
];
for (const file of readdirSync(dist).filter((name) => name.endsWith(".d.ts") || name.endsWith(".js"))) {
  const path = join(dist, file);
  const text = readFileSync(path, "utf8");
  const rewritten = specifiers.reduce((at, [from, to]) => at.replaceAll(from, to), text);
  if (rewritten !== text) writeFileSync(path, rewritten);
  if (file.endsWith(".js") && rewritten.includes("@dhs/contract")) {
    throw new Error(`dist/${file} imports @dhs/contract at run time; the published client could not load it`);
  }
}
