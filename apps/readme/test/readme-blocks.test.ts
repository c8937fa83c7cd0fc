import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { blockNamed, commandsAgainst, docFiles, docsBlocks, placeOf, readmeBlocks } from "./readme-blocks.js";

describe("readmeBlocks", () => {
  it("reads marked shell blocks: continued lines joined, comments dropped, promised outputs kept", () => {
    const markdown = [
      "# Title",
      "<!-- readme-test: demo -->",
      "```sh",
      "# a comment",
      "curl -s localhost:8080/v1/me \\",
      "  -H 'Authorization: Bearer x'",
      '# => {"key_id":"k"}   (and prose after it)',
      "PORT=x pnpm start",
      "# => configuration error: PORT",
      "```",
      "```ts",
      "const notShell = 1;",
      "```",
    ].join("\n");
    expect(readmeBlocks(markdown)).toEqual([
      {
        marker: "demo",
        file: "README.md",
        line: 3,
        commands: [
          {
            text: "curl -s localhost:8080/v1/me -H 'Authorization: Bearer x'",
            file: "README.md",
            line: 5,
            expected: { json: { key_id: "k" } },
          },
          { text: "PORT=x pnpm start", file: "README.md", line: 8, expected: { text: "configuration error: PORT" } },
        ],
      },
    ]);
  });

  it("refuses a shell block without a marker, so a new command is never left untested by accident", () => {
    expect(() => readmeBlocks("text\n\n```sh\nls\n```")).toThrow(/README\.md:3: a shell block without/);
    expect(() => readmeBlocks("text\n\n```sh\nls\n```", "docs/qa.md")).toThrow(/docs\/qa\.md:3: a shell block without/);
  });

  it("takes a marker only for the block right after it", () => {
    expect(() => readmeBlocks("<!-- readme-test: a -->\nsome prose\n```sh\nls\n```")).toThrow(/without/);
  });
});

describe("the docs as several files", () => {
  const block = (marker: string, command: string) => `<!-- readme-test: ${marker} -->\n\`\`\`sh\n${command}\n\`\`\`\n`;

  it("reads README.md, then every Markdown file under docs/ (folders included) in path order, and nothing else", () => {
    const root = mkdtempSync(join(tmpdir(), "dhs-readme-blocks-"));
    mkdirSync(join(root, "docs/decisions"), { recursive: true });
    writeFileSync(join(root, "README.md"), `# Readme\n\n${block("service", "pnpm start")}`);
    writeFileSync(join(root, "docs/operators.md"), `# Operators\n\n${block("against service", "curl -s localhost:8080/readyz")}`);
    writeFileSync(join(root, "docs/decisions/0001-a.md"), "# A decision\n\nNo commands.\n");
    writeFileSync(join(root, "docs/backend.md"), `# Backend\n\n${block("skip, it needs Go", "go version")}`);
    writeFileSync(join(root, "docs/notes.txt"), block("not-markdown", "ls"));
    const files = docFiles(root);
    expect(files.map((f) => f.path)).toEqual(["README.md", "docs/backend.md", "docs/decisions/0001-a.md", "docs/operators.md"]);

    const blocks = docsBlocks(files);
    expect(blocks.map((b) => `${placeOf(b)} ${b.marker}`)).toEqual([
      "README.md:4 service",
      "docs/backend.md:4 skip, it needs Go",
      "docs/operators.md:4 against service",
    ]);
    // A service in one file, a block against it in another: run together, each command naming its own file.
    expect(blockNamed(blocks, "service").commands.map(placeOf)).toEqual(["README.md:5"]);
    expect(commandsAgainst(blocks, "service").map((c) => `${placeOf(c)} ${c.text}`)).toEqual([
      "docs/operators.md:5 curl -s localhost:8080/readyz",
    ]);
  });

  it("reads README.md alone when there is no docs/ folder", () => {
    const root = mkdtempSync(join(tmpdir(), "dhs-readme-blocks-"));
    writeFileSync(join(root, "README.md"), "# Readme\n");
    expect(docFiles(root)).toEqual([{ path: "README.md", text: "# Readme\n" }]);
  });

  it("names a service by one block in all the files: none, or one in two files, is an error naming where", () => {
    const blocks = docsBlocks([
      { path: "README.md", text: block("service", "pnpm start") },
      { path: "docs/operators.md", text: `text\n\n${block("service", "pnpm start")}` },
    ]);
    expect(() => blockNamed(blocks, "service")).toThrow(/2 blocks marked service \(README\.md:2, docs\/operators\.md:4\)/);
    expect(() => blockNamed(blocks, "mock")).toThrow(/no block marked mock/);
  });

  it("refuses an unmarked block in any file, naming the file", () => {
    expect(() =>
      docsBlocks([
        { path: "README.md", text: "" },
        { path: "docs/qa.md", text: "\n```sh\nls\n```" },
      ]),
    ).toThrow(/docs\/qa\.md:2: a shell block without/);
  });
});
