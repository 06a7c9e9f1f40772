/**
 * Beckon's agent tools (MCP). They live beside the procedures they call, in the server package
 * (server/src/mcp), because the resource process mounts them at POST /mcp; this package is their
 * public name for other code (e.g. a gateway embedding the same tools).
 */
export { agentServer } from '@beckon/server/mcp/agent-server';
export { AGENT_TOOLS, type AgentTool } from '@beckon/server/mcp/tools';
