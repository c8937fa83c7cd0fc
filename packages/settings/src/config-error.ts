/**
 * The one error a configuration mistake raises, at start or on a reload of the operator's files: its
 * message is one line that names the variable (and the file's entry and field), so an operator sees the
 * mistake rather than a stack.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
