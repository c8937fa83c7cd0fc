export { chromiumLaunchOptions } from "./chromium.js";
export { freePort } from "./free-port.js";
export { type RedisCluster, startRedisCluster } from "./redis-cluster.js";
export { type RedisServer, startRedis } from "./redis-server.js";
export { type SecretScan, scanForSecrets } from "./secret-scan.js";
export { sleep, type UntilOptions, until } from "./until.js";
export { waitForOutput } from "./wait-for-output.js";
