import { describe, expect, it } from "vitest";
import { readmeBlocks } from "./readme-blocks.js";

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
        line: 3,
        commands: [
          { text: "curl -s localhost:8080/v1/me -H 'Authorization: Bearer x'", line: 5, expected: { json: { key_id: "k" } } },
          { text: "PORT=x pnpm start", line: 8, expected: { text: "configuration error: PORT" } },
        ],
      },
    ]);
  });

  it("refuses a shell block without a marker, so a new command is never left untested by accident", () => {
    expect(() => readmeBlocks("text\n\n```sh\nls\n```")).toThrow(/line 3: a shell block without/);
  });

  it("takes a marker only for the block right after it", () => {
    expect(() => readmeBlocks("<!-- readme-test: a -->\nsome prose\n```sh\nls\n```")).toThrow(/without/);
  });
});
