// The tools of the MCP conformance suite's server scenarios, as a module `toolshed serve` loads
// (`tools: [./tools.mjs]` in toolshed.yaml beside it), defined with the toolshed package from
// definitions.mjs. Used by scripts/conformance.mjs.
import * as toolshed from 'toolshed';
import { conformanceToolDefinitions } from './definitions.mjs';

const tools = conformanceToolDefinitions(toolshed);

// serve registers every exported tool spec.
export const [
  testSimpleText,
  testImageContent,
  testAudioContent,
  testEmbeddedResource,
  testMultipleContentTypes,
  testToolWithLogging,
  testToolWithProgress,
  testErrorHandling,
  testSampling,
  testElicitation,
  testElicitationSep1034Defaults,
  testElicitationSep1330Enums,
  jsonSchema202012Tool,
  testReconnection,
] = tools;
