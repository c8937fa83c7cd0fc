// The contract's own `x-` extensions, typed for Redocly (a type extension, loaded by redocly.yaml), so
// `pnpm lint` checks their values as it checks the rest of openapi/v1.yaml and walks what they reference:
// - `x-retry-safe` (operation): `true` when doing the operation twice does no more than doing it once, so
//   a client may retry it without an Idempotency-Key (packages/contract's operation list carries it).
// - `x-key-modes` (operation): the key modes that may call it (the server's authorization reads it).
// - `x-digital-human-job` (tag): the schema of what a digital human's job is told in its dispatch's
//   metadata. LiveKit carries it, not an operation of this API, so without this link the schema would
//   be an unused component; with it, Redocly walks it and checks its example like any other schema's.
export default function contractExtensions() {
  return {
    id: "dhs",
    typeExtension: {
      oas3(types) {
        return {
          ...types,
          Operation: {
            ...types.Operation,
            properties: {
              ...types.Operation.properties,
              "x-retry-safe": { type: "boolean" },
              "x-key-modes": { type: "array", items: { type: "string", enum: ["live", "test"] } },
            },
          },
          Tag: { ...types.Tag, properties: { ...types.Tag.properties, "x-digital-human-job": "Schema" } },
        };
      },
    },
  };
}
