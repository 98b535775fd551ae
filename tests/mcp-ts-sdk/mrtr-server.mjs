// A server of the MCP 2026-07-28 revision, built on the official TypeScript SDK v2
// (`@modelcontextprotocol/server`, pinned in package-lock.json): its tool asks the person with
// `inputRequired.elicit` (a multi round-trip request, MRTR), so the question comes back in the
// tool call's result (`resultType: "input_required"`) and the answer in the retried call's
// `inputResponses`. The SDK's own code checks the request's declared capabilities, builds the
// result and reads the answers; this file only declares the tool.
//   PORT=N node mrtr-server.mjs   prints "MRTR example listening on URL" once it listens
import { createServer } from 'node:http';
import { McpServer, acceptedContent, createMcpHandler, fromJsonSchema, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';

const party = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name' },
    size: { type: 'integer', title: 'Party size', minimum: 1, maximum: 12 },
  },
  required: ['name', 'size'],
};

function server() {
  const mcp = new McpServer({ name: 'mrtr-example', version: '1.0.0' });
  mcp.registerTool(
    'book_table',
    {
      description: 'Book a table; asks who the booking is for first',
      inputSchema: fromJsonSchema({ type: 'object', properties: { restaurant: { type: 'string' } }, required: ['restaurant'] }),
    },
    async ({ restaurant }, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      const answer = acceptedContent(responses, 'party');
      if (answer) {
        return { content: [{ type: 'text', text: `booked ${restaurant} for ${answer.name}, ${answer.size} people` }] };
      }
      if (responses?.party) {
        const view = inputResponse(responses, 'party');
        return { content: [{ type: 'text', text: `not booked: ${view.kind === 'elicit' ? view.action : view.kind}` }] };
      }
      return inputRequired({
        inputRequests: { party: inputRequired.elicit({ message: `Booking at ${restaurant}: who is it for?`, requestedSchema: party }) },
        requestState: 'asked-once',
      });
    },
  );
  return mcp;
}

const handle = toNodeHandler(createMcpHandler(server, { onerror: (e) => console.error('mrtr-server:', e.message) }));
const http = createServer(handle);
http.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  console.log(`MRTR example listening on http://127.0.0.1:${http.address().port}/mcp`);
});
