import { describe, expect, it } from "vitest";
import { sectionsOf } from "./document-text.js";

const html = (content: string) => sectionsOf("html", content);
const MiB = 1024 * 1024;

describe("an HTML document's sections", () => {
  it("only what a reader sees: no head, script, style, noscript or template", () => {
    const sections = html(
      "<!doctype html><html><head><title>Page</title><meta charset=utf-8><style>p{color:red}</style><script>var a = '<p>';</script></head>" +
        "<body><noscript>Enable JS</noscript><template><p>Later</p></template><p>Welcome &amp; hello&nbsp;there &#8212; &eacute;t&eacute;</p></body></html>",
    );
    expect(sections).toEqual([{ headings: [], paragraphs: ["Welcome & hello there — été"] }]);
  });

  it("an HTML heading starts a section under the headings above it", () => {
    expect(html("<h1>Hotel</h1><p>Welcome.</p><h2>Breakfast</h2><p>From 7.</p><h2>Spa <small>new</small></h2><p>Sauna.</p>")).toEqual([
      { headings: ["Hotel"], paragraphs: ["Welcome."] },
      { headings: ["Hotel", "Breakfast"], paragraphs: ["From 7."] },
      { headings: ["Hotel", "Spa new"], paragraphs: ["Sauna."] },
    ]);
  });

  it("block elements end paragraphs, inline ones do not, white space is collapsed", () => {
    const sections = html("<div>One <b>bold</b>\n   <i>word</i></div><p>Two</p>Three<br>Four<section><article>Five</article></section>");
    expect(sections[0]?.paragraphs).toEqual(["One bold word", "Two", "Three", "Four", "Five"]);
  });

  it("a list is one paragraph of items, a nested list on its item's line", () => {
    const sections = html(
      "<ul><li>Single<li>Double<ul><li>with a view</ul></li><li><p>Suite</p><p>with a sauna</p></li></ul><ol><li>First</li><li>Second</li></ol>",
    );
    expect(sections[0]?.paragraphs).toEqual(["- Single\n- Double with a view\n- Suite with a sauna", "1. First\n2. Second"]);
  });

  it("a table is one paragraph of rows, its cells between bars", () => {
    const sections = html(
      "<table><caption>Prices</caption><tr><th>Room</th><th>Price</th></tr><tr><td>Single</td><td><p>90</p></td></tr></table>",
    );
    expect(sections[0]?.paragraphs).toEqual(["Prices\nRoom | Price\nSingle | 90"]);
  });

  it("preformatted text keeps its lines, and a definition list has a line per term and definition", () => {
    const sections = html("<pre>line one\n  line two</pre><dl><dt>Check-in</dt><dd>From 15:00</dd></dl>");
    expect(sections[0]?.paragraphs).toEqual(["line one\n  line two", "Check-in\nFrom 15:00"]);
  });

  it("malformed HTML is read as far as it goes, never thrown on", () => {
    expect(html("<p>Unclosed <b>bold <div>and <h2>Half a heading<p>then text")).toEqual([
      { headings: [], paragraphs: ["Unclosed bold", "and"] },
      { headings: ["Half a heading"], paragraphs: ["then text"] },
    ]);
    expect(html("</ul></table></h1><li>stray item<td>cell<td>cell")).toEqual([{ headings: [], paragraphs: ["- stray item cell | cell"] }]);
    expect(() => html("<<<>>><p </p>&&&; <a href='x>y</a> <!-- never closed")).not.toThrow();
  });

  it("a heading never closed, longer than a heading can be, is a paragraph", () => {
    const text = "word ".repeat(60).trim();
    expect(html(`<h1>${text}`)).toEqual([{ headings: [], paragraphs: [text] }]);
  });

  it("a character reference to a bidirectional control is dropped, as shown text drops it, in HTML and Markdown alike", () => {
    expect(html("<h2>Price &#x202E;list&#x202C;</h2><p>Pay &#x2066;here&#x2069; &#8238;now</p>")).toEqual([
      { headings: ["Price list"], paragraphs: ["Pay here now"] },
    ]);
    expect(sectionsOf("markdown", "# Price &#x202E;list\n\n- Pay &#8238;now")).toEqual([
      { headings: ["Price list"], paragraphs: ["- Pay now"] },
    ]);
    expect(sectionsOf("text", "Pay \u202enow")).toEqual([{ headings: [], paragraphs: ["Pay now"] }]);
  });

  it("a character reference to a control character is a space", () => {
    expect(html("<p>bell&#7;here&#0;and</p>")[0]?.paragraphs).toEqual(["bell here\uFFFDand"]);
  });

  it("markup alone leaves no sections", () => {
    expect(html("<html><head><title>Only a title</title></head><body><p> </p><script>x()</script></body></html>")).toEqual([]);
  });
});

describe("an HTML document of 1 MiB made to be slow is read in about linear time", () => {
  it.each([
    ["elements nested 200 000 deep", "<div>".repeat(MiB / 5)],
    ["inline elements nested, then closed in the wrong order", `${"<b><i>".repeat(MiB / 12)}x${"</b>".repeat(MiB / 8)}`],
    ["lists nested and never closed", "<ul><li>x".repeat(MiB / 9)],
    ["tables nested and never closed", "<table><tr><td>x".repeat(MiB / 16)],
    ["a never-ending tag", `<a ${"b=&amp; ".repeat(MiB / 8)}`],
    ["less-than signs", "<".repeat(MiB)],
  ])("%s", (_, content) => {
    expect(() => html(content)).not.toThrow();
  });
});
