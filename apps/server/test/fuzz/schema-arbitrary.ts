/**
 * fast-check arbitraries from the contract's JSON Schemas (OpenAPI 3.1): values a schema accepts, for the
 * keywords the contract uses (type, enum, const, formats, pattern, lengths, bounds, objects, arrays,
 * $ref, oneOf/anyOf). No maintained npm package does this for fast-check 4 (json-schema-fast-check
 * targets fast-check 1); the keywords are few, and the fuzz test checks that every value generated here
 * is accepted by Ajv, so the generator cannot drift from the schemas unnoticed.
 */
import fc from "fast-check";

export type Schema = Record<string, any>;

export function schemaArbitrary(schema: Schema, document: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (schema.$ref) return schemaArbitrary(resolveRef(document, schema.$ref), document, depth);
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((s: Schema) => schemaArbitrary(s, document, depth + 1)));
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => schemaArbitrary({ ...schema, type }, document, depth)));
  switch (types[0]) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case "number":
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case "string":
      return stringArbitrary(schema);
    case "array": {
      const items = schemaArbitrary(schema.items ?? {}, document, depth + 1);
      return fc.array(items, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, 5) });
    }
    case "object":
      return objectArbitrary(schema, document, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  switch (schema.format) {
    case "uuid":
      return fc.uuid();
    case "date-time":
      return fc.oneof(
        {
          weight: 9,
          arbitrary: fc.date({ min: new Date("2000-01-01"), max: new Date("2099-12-31"), noInvalidDate: true }).map((d) => d.toISOString()),
        },
        // Leap seconds, which RFC 3339 allows and JavaScript's Date cannot parse (issue 39).
        { weight: 1, arbitrary: fc.constantFrom("2016-12-31T23:59:60Z", "2026-12-31T23:59:60.500Z", "2016-12-31T18:59:60-05:00") },
      );
    case "uri":
      return fc.webUrl();
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? 64;
  if (schema.pattern) {
    return fc.stringMatching(new RegExp(schema.pattern, "u")).filter((s) => [...s].length >= minLength && [...s].length <= maxLength);
  }
  return fc
    .string({ unit: "grapheme", minLength, maxLength: Math.min(maxLength, minLength + 64) })
    .filter((s) => [...s].length <= maxLength);
}

function objectArbitrary(schema: Schema, document: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const required: string[] = schema.required ?? [];
  const record = fc.record(
    Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, schemaArbitrary(s, document, depth + 1)])),
    { requiredKeys: required.filter((name) => name in properties) },
  );
  if (schema.additionalProperties === false || depth > 3) return record as fc.Arbitrary<Record<string, unknown>>;
  const extra = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !(k in properties)),
    fc.jsonValue({ maxDepth: 1 }),
    { maxKeys: 2 },
  );
  return fc.tuple(record, extra).map(([known, more]) => ({ ...more, ...known }));
}

export function resolveRef(document: Schema, ref: string): Schema {
  if (!ref.startsWith("#/")) throw new Error(`only local $refs are supported: ${ref}`);
  let node: any = document;
  for (const part of ref.slice(2).split("/")) node = node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  if (!node) throw new Error(`unresolved $ref ${ref}`);
  return node.$ref ? resolveRef(document, node.$ref) : node;
}
