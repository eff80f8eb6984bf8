// One MCP tool call's round trip from the official TypeScript SDK
// (@modelcontextprotocol/sdk, installed by `npm install` in this folder).
//
// node ts_sdk.mjs URL TOKEN NOTE_ID CALLS WARMUP  ->  one line: client p50_ms p99_ms
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, note, calls, warmup] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "ts-latency", version: "1" });
await client.connect(transport);
const samples = [];
for (let i = 0; i < Number(warmup) + Number(calls); i++) {
  const start = process.hrtime.bigint();
  const result = await client.callTool({
    name: "read_note_tab",
    arguments: { note_id: note, tab_id: "markdown" },
  });
  const took = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.isError) throw new Error(`read_note_tab failed: ${JSON.stringify(result)}`);
  if (i >= Number(warmup)) samples.push(took);
}
await client.close();
samples.sort((a, b) => a - b);
const at = (p) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))];
console.log(`typescript-sdk ${at(50).toFixed(2)} ${at(99).toFixed(2)}`);
