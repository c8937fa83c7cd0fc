export { freePort } from "./free-port.js";
export { waitForOutput } from "./wait-for-output.js";
export { type SecretScan, scanForSecrets } from "./secret-scan.js";
