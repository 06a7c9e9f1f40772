// An MCP server for the gate's tests: notes in memory, one read-only tool, one additive, one
// destructive, and a resource. Run with node for stdio; import notesServer() for HTTP.
import { pathToFileURL } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const TOOLS = [
  {
    name: 'read_notes',
    description: 'The notes',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'add_note',
    description: 'Adds a note',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  {
    name: 'delete_notes',
    description: 'Deletes every note',
    inputSchema: { type: 'object', properties: { reason: { type: 'string' } } },
    annotations: { destructiveHint: true },
  },
];

/** A fresh server over its own notes (`notes` is shared with the caller, to look at). */
export function notesServer(notes = ['first note']) {
  const server = new Server(
    { name: 'notes', version: '1.0.0' },
    { capabilities: { tools: {}, resources: {} } },
  );
  const text = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const { name, arguments: args = {} } = request.params;
    if (name === 'read_notes') return text(notes);
    if (name === 'add_note') {
      notes.push(String(args.text));
      return text(notes);
    }
    if (name === 'delete_notes') {
      notes.splice(0, notes.length);
      return text(notes);
    }
    return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true };
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [{ uri: 'notes://all', name: 'all notes', mimeType: 'application/json' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, () => ({
    contents: [{ uri: 'notes://all', mimeType: 'application/json', text: JSON.stringify(notes) }],
  }));
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await notesServer().connect(new StdioServerTransport());
}
