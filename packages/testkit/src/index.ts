export { freePort } from "./free-port.js";
export { type SecretScan, scanForSecrets } from "./secret-scan.js";
export { waitForOutput } from "./wait-for-output.js";
