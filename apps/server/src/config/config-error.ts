/** The settings package's one configuration error, which the operator's files raise too. */
export { ConfigError } from "@dhs/settings";
