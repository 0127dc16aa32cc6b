// MCP tools/call: toolshed's createMcpServer(registry) beside a bare SDK McpServer (the same `add`,
// registered with zod), each driven by its own SDK Client over InMemoryTransport.createLinkedPair(),
// timed side by side in this one process (measureCallPair: alternating time-boxed rounds). A second
// pair, the bare server against another bare server, shows how far apart two identical paths land.
import { ADD_ARGS } from '../lib/add-tool.js';
import { runCase } from '../lib/case.js';
import { connectClient, createBareMcpServer, createToolshedMcpServer, verifyMcpAdd } from '../lib/mcp-add.js';
import { measureCallPair } from '../lib/timing.js';

const REQUEST = { name: 'add', arguments: ADD_ARGS };

await runCase('mcp-tools-call', async () => {
  const bare = await connectClient(createBareMcpServer());
  const toolshed = await connectClient(createToolshedMcpServer());
  const bareAgain = await connectClient(createBareMcpServer());
  await verifyMcpAdd(bare, 'McpServer');
  await verifyMcpAdd(toolshed, 'createMcpServer');
  await verifyMcpAdd(bareAgain, 'McpServer');
  const pair = await measureCallPair(
    () => bare.callTool(REQUEST),
    () => toolshed.callTool(REQUEST),
    { async: true, roundMs: 50, rounds: 41 },
  );
  const control = await measureCallPair(
    () => bare.callTool(REQUEST),
    () => bareAgain.callTool(REQUEST),
    { async: true, roundMs: 50, rounds: 21 },
  );
  return {
    bareNsPerCall: pair.first.nsPerCall,
    bareRoundsNsPerCall: pair.first.roundsNsPerCall,
    bareCallsPerS: 1e9 / pair.first.nsPerCall,
    toolshedNsPerCall: pair.second.nsPerCall,
    toolshedRoundsNsPerCall: pair.second.roundsNsPerCall,
    toolshedCallsPerS: 1e9 / pair.second.nsPerCall,
    // calls/s of toolshed ÷ calls/s of the bare server: the median of the per-round ratios.
    throughputRatio: 1 / pair.ratio,
    roundsThroughputRatio: pair.roundsRatio.map((value) => 1 / value),
    // The same for two identical bare servers: 1 on a quiet machine.
    controlThroughputRatio: 1 / control.ratio,
    controlRoundsThroughputRatio: control.roundsRatio.map((value) => 1 / value),
  };
});
