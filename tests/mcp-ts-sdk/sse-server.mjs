// A server of MCP's legacy HTTP+SSE transport (2024-11-05), on the official TypeScript SDK's
// own `SSEServerTransport` and express app (`@modelcontextprotocol/sdk` 1.x, pinned in
// package-lock.json), as its `simpleSseServer.js` example is, on a port of the caller's choice
// and behind an API key header (a secret the gateway must keep from the agent):
//   GET /sse opens the event stream (its `endpoint` event names /messages?sessionId=...),
//   POST /messages carries the client's messages. Both answer 401 without `x-api-key: KEY`.
// Tools: `whoami` (the API key's owner) and `book` (asks the person for a name with
// `elicitInput`, form mode, then answers with what came back).
//   PORT=N API_KEY=KEY node sse-server.mjs   prints "SSE example listening on URL" once it listens
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';

const port = Number(process.env.PORT ?? 3000);
const key = process.env.API_KEY ?? 'sse-key';

function server() {
  const mcp = new McpServer({ name: 'legacy-sse-example', version: '1.0.0' });
  mcp.registerTool('whoami', { description: 'Who the API key belongs to' }, async () => ({
    content: [{ type: 'text', text: 'the key of Ada' }],
  }));
  mcp.registerTool('book', { description: 'Book a table; asks for the name first' }, async () => {
    const answer = await mcp.server.elicitInput({
      message: 'Who is the booking for?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
    });
    const text = answer.action === 'accept' ? `booked for ${answer.content.name}` : `not booked (${answer.action})`;
    return { content: [{ type: 'text', text }] };
  });
  return mcp;
}

const app = createMcpExpressApp();
app.use((req, res, next) => (req.headers['x-api-key'] === key ? next() : res.status(401).send('no key')));
const transports = {};
app.get('/sse', async (req, res) => {
  const transport = new SSEServerTransport('/messages', res);
  transports[transport.sessionId] = transport;
  transport.onclose = () => delete transports[transport.sessionId];
  await server().connect(transport);
});
app.post('/messages', async (req, res) => {
  const transport = transports[req.query.sessionId];
  if (!transport) return res.status(404).send('Session not found');
  await transport.handlePostMessage(req, res, req.body);
});
app.listen(port, '127.0.0.1', (error) => {
  if (error) {
    console.error(error);
    process.exit(1);
  }
  console.log(`SSE example listening on http://127.0.0.1:${port}/sse`);
});
