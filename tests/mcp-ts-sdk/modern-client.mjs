// An agent's MCP client of the 2026-07-28 revision: the official TypeScript SDK v2's `Client`
// (`@modelcontextprotocol/client`, pinned in package-lock.json), negotiating the revision with
// `server/discover` and declaring no elicitation (as most agents). Calls one tool and prints
// one JSON line: {"result": ...} or {"error": {message, code, data}}.
//   node modern-client.mjs URL TOOL ARGS_JSON
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, tool, args] = process.argv.slice(2);
const client = new Client({ name: 'plain-agent', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
let out;
try {
  out = { protocol: transport.protocolVersion, result: await client.callTool({ name: tool, arguments: JSON.parse(args) }) };
} catch (e) {
  out = { protocol: transport.protocolVersion, error: { message: e.message, code: e.code, data: e.data ?? null } };
}
console.log(JSON.stringify(out));
await client.close();
