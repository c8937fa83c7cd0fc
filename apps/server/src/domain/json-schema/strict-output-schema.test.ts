import { describe, expect, it } from "vitest";
import { type StrictSchemaLimits, strictSchemaIssues } from "./strict-output-schema.js";

const LIMITS: StrictSchemaLimits = { maxBytes: 8192, maxDepth: 5, maxProperties: 100, maxEnumValues: 250 };
const P = "analysis.data_schema";
const at = (path: string, message: string) => ({ location: "body", path, message });
const issues = (schema: Record<string, unknown>, limits = LIMITS) => strictSchemaIssues(schema, P, limits);
const closed = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

describe("a strict structured output's schema", () => {
  it("takes a lead: name, email, a nullable phone, an enum of interests", () => {
    const lead = closed({
      name: { type: "string", description: "Full name" },
      email: { type: "string", format: "email" },
      phone: { type: ["string", "null"], pattern: "^\\+?[0-9 ]{6,20}$" },
      interest: { type: "string", enum: ["rooms", "events", "spa"] },
    });
    expect(issues(lead)).toEqual([]);
  });

  it("takes a booking: a nested object and an array of objects, with numeric and array bounds", () => {
    const booking = closed({
      dates: closed({ check_in: { type: "string", format: "date" }, nights: { type: "integer", minimum: 1, maximum: 30 } }),
      guests: {
        type: "array",
        minItems: 1,
        maxItems: 6,
        items: closed({ name: { type: "string" }, age: { anyOf: [{ type: "integer", exclusiveMinimum: 0 }, { type: "null" }] } }),
      },
      deposit: { type: "number", multipleOf: 0.01, const: 50 },
    });
    expect(issues({ ...booking, title: "Booking", description: "What was booked" })).toEqual([]);
  });

  it("takes $defs at the root and local $refs to them, recursive ones too", () => {
    const schema = {
      ...closed({ home: { $ref: "#/$defs/address" }, work: { anyOf: [{ $ref: "#/$defs/address" }, { type: "null" }] } }),
      $defs: {
        address: closed({ street: { type: "string" }, city: { type: "string" } }),
        node: closed({ children: { type: "array", items: { $ref: "#/$defs/node" } } }),
      },
    };
    expect(issues(schema)).toEqual([]);
  });

  it("needs an object at the root, without anyOf", () => {
    expect(issues({ type: ["object", "null"], anyOf: [closed({})], additionalProperties: false })).toEqual([
      at(`${P}.type`, 'must be "object": the data extracted is a JSON object'),
      at(`${P}.anyOf`, "is not taken at the root, only inside it"),
    ]);
  });

  it("needs every object closed and all its properties required, saying how to write an optional one", () => {
    const schema = closed({ contact: { type: "object", properties: { email: { type: "string" }, phone: { type: "string" } } } });
    expect(issues({ ...schema, required: ["contact", "other"] })).toEqual([
      at(`${P}.required`, "names other, not among the properties"),
      at(`${P}.properties.contact.additionalProperties`, "is missing: strict structured outputs need it false in every object"),
      at(
        `${P}.properties.contact.required`,
        "must list every property, and misses email, phone: strict structured outputs fill every field; " +
          'an optional field is written with "null" among its types, e.g. "type": ["string", "null"]',
      ),
    ]);
    expect(issues({ ...closed({ a: { type: "string" } }), additionalProperties: { type: "string" } })).toEqual([
      at(`${P}.additionalProperties`, "must be false: strict structured outputs take only the properties listed"),
    ]);
  });

  it.each([
    ["allOf", [{ type: "string" }]],
    ["oneOf", [{ type: "string" }]],
    ["not", { type: "string" }],
    ["if", { type: "string" }],
    ["then", { type: "string" }],
    ["patternProperties", { "^x": { type: "string" } }],
    ["minLength", 1],
    ["default", "x"],
    ["definitions", {}],
  ])("refuses %s, naming the keyword by its path", (keyword, value) => {
    expect(issues(closed({ email: { type: "string", [keyword]: value } }))).toEqual([
      at(`${P}.properties.email.${keyword}`, "is not a keyword OpenAI's strict structured outputs take"),
    ]);
  });

  it("refuses a schema without a type, an unknown type, and values strict mode does not take", () => {
    const schema = closed({
      any: { description: "no type" },
      kind: { type: "text" },
      when: { type: "string", format: "uri" },
      code: { type: "string", pattern: "([a-z" },
      size: { type: "integer", minimum: "1", multipleOf: 0 },
      tags: { type: "array", items: { type: "string" }, maxItems: -1 },
      level: { type: "string", enum: [] },
      flag: { type: "object", const: {}, properties: {}, required: [], additionalProperties: false },
    });
    expect(issues(schema)).toEqual([
      at(`${P}.properties.any`, "has no type: strict structured outputs need one in every schema (or anyOf, or $ref)"),
      at(`${P}.properties.kind.type`, "is not one of string, number, integer, boolean, array, object, null (or a list of them)"),
      at(`${P}.properties.when.format`, "is not one of date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid"),
      at(`${P}.properties.code.pattern`, "is not a regular expression"),
      at(`${P}.properties.size.minimum`, "is not a number"),
      at(`${P}.properties.size.multipleOf`, "is not a number above 0"),
      at(`${P}.properties.tags.maxItems`, "is not a whole number of 0 or more"),
      at(`${P}.properties.level.enum`, "is not a non-empty list of strings, numbers, booleans or null"),
      at(`${P}.properties.flag.const`, "is not a string, number, boolean or null"),
    ]);
  });

  it("takes $ref only to a schema in the root's $defs, and $defs only at the root", () => {
    const schema = {
      ...closed({
        a: { $ref: "#/$defs/missing" },
        b: { $ref: "https://example.com/schema.json" },
        c: { $ref: "#/properties/a" },
        d: { ...closed({}), $defs: { x: { type: "string" } } },
      }),
      $defs: { ok: { type: "string" } },
    };
    const refused = 'is not "#/$defs/<name>" of a schema in the root\'s $defs';
    expect(issues(schema)).toEqual([
      at(`${P}.properties.a.$ref`, refused),
      at(`${P}.properties.b.$ref`, refused),
      at(`${P}.properties.c.$ref`, refused),
      at(`${P}.properties.d.$defs`, "is taken only at the root"),
    ]);
  });

  it("refuses property names providers do not take", () => {
    expect(issues(closed({ "e-mail": { type: "string" }, "1st": { type: "string" }, [`a${"b".repeat(64)}`]: { type: "string" } }))).toEqual(
      [
        at(`${P}.properties.e-mail`, "is not a property name: a letter or _, then at most 63 letters, digits or _"),
        at(`${P}.properties.1st`, "is not a property name: a letter or _, then at most 63 letters, digits or _"),
        at(`${P}.properties.a${"b".repeat(64)}`, "is not a property name: a letter or _, then at most 63 letters, digits or _"),
      ],
    );
    expect(issues(closed({ _x: { type: "string" }, [`a${"b".repeat(63)}`]: { type: "string" } }))).toEqual([]);
  });

  it("holds to the caller's bounds: size, depth, properties and enum values in all", () => {
    const limits = { maxBytes: 300, maxDepth: 3, maxProperties: 3, maxEnumValues: 4 };
    const two = (value: unknown) => closed({ a: value, b: { type: "string", enum: ["x", "y", "z"] } });
    expect(issues(two(two({ type: "string" })), limits)).toEqual([
      at(P, "has 4 properties in all, more than 3"),
      at(P, "has 6 enum values in all, more than 4"),
    ]);
    expect(issues(two(two(two({ type: "string" }))), limits)).toEqual([
      at(P, expect.stringMatching(/^is \d+ bytes as JSON, more than 300$/)),
      at(`${P}.properties.a.properties.a.properties.a`, "nests schemas more than 3 deep"),
      at(`${P}.properties.a.properties.a.properties.b`, "nests schemas more than 3 deep"),
      // What lies past the depth bound is not walked, so not counted either.
      at(P, "has 6 properties in all, more than 3"),
      at(P, "has 6 enum values in all, more than 4"),
    ]);
  });

  it("refuses a pattern the service cannot match in linear time, and takes one a backtracking engine would stall on", () => {
    expect(issues(closed({ code: { type: "string", pattern: "^(?=.*\\d)[a-z0-9]+$" } }))).toEqual([
      at(`${P}.properties.code.pattern`, expect.stringMatching(/^is not a regular expression the service can match in linear time/)),
    ]);
    expect(issues(closed({ code: { type: "string", pattern: "^(a+)+$" } }))).toEqual([]);
    expect(issues(closed({ city: { type: "string", pattern: "^[\\u00c0-\\u017fA-Za-z ]+$" } }))).toEqual([]);
  });

  it("refuses a $ref loop that never goes into the value, and takes recursion that does", () => {
    const loop = { ...closed({ a: { $ref: "#/$defs/a" } }), $defs: { a: { anyOf: [{ $ref: "#/$defs/a" }, { type: "null" }] } } };
    expect(issues(loop)).toEqual([
      at(
        `${P}.$defs.a.anyOf.0.$ref`,
        "loops back through #/$defs/a -> #/$defs/a without going into a property or item: it would never end",
      ),
    ]);
    const tree = {
      ...closed({ root: { $ref: "#/$defs/node" } }),
      $defs: { node: closed({ kids: { type: "array", items: { $ref: "#/$defs/node" } } }) },
    };
    expect(issues(tree)).toEqual([]);
  });

  it("names a reference by the definition Ajv would read it as", () => {
    const encoded = { ...closed({ a: { $ref: "#/$defs/%61" } }), $defs: { a: { type: "string" } } };
    expect(issues(encoded)).toEqual([]);
    const missing = { ...closed({ a: { $ref: "#/$defs/%62" } }), $defs: { a: { type: "string" } } };
    expect(issues(missing)).toEqual([at(`${P}.properties.a.$ref`, 'is not "#/$defs/<name>" of a schema in the root\'s $defs')]);
  });
});
