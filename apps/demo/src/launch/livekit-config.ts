/**
 * LiveKit's configuration for a machine of its own: loopback only, API keys given here, rooms made only
 * by the service (an old token must not bring an ended room back), and its webhooks sent to the service.
 */
export interface LiveKitConfig {
  port: number;
  rtcTcpPort: number;
  /** One UDP port for all media, or a range (one port per connection). */
  udp: { port: number } | { start: number; end: number };
  keys: Record<string, string>;
  /** Signs the webhooks; one of `keys`. */
  webhookApiKey: string;
  webhookUrl: string;
  logLevel?: "debug" | "info" | "warn";
}

export function liveKitConfigYaml(config: LiveKitConfig): string {
  const udp =
    "port" in config.udp
      ? [`  udp_port: ${config.udp.port}`]
      : [`  port_range_start: ${config.udp.start}`, `  port_range_end: ${config.udp.end}`];
  return [
    `port: ${config.port}`,
    "bind_addresses: [127.0.0.1]",
    "rtc:",
    `  tcp_port: ${config.rtcTcpPort}`,
    ...udp,
    "  use_external_ip: false",
    "  node_ip: 127.0.0.1",
    "keys:",
    ...Object.entries(config.keys).map(([key, secret]) => `  ${key}: ${secret}`),
    "room:",
    "  auto_create: false",
    "webhook:",
    `  api_key: ${config.webhookApiKey}`,
    "  urls:",
    `    - ${config.webhookUrl}`,
    "logging:",
    `  level: ${config.logLevel ?? "info"}`,
    "",
  ].join("\n");
}
