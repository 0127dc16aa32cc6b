// Types of bfcl-retrieval.js, for the tests that share it with the bench.

export const BFCL_DIR: string;

export interface RetrievalTool {
  name: string;
  description: string;
  category: string;
  tags: string[];
  inputSchema: { type: 'object'; properties: Record<string, { description?: string }> };
}

export interface RetrievalQuery {
  id: string;
  text: string;
  gold: string[];
}

export interface RetrievalSet {
  tools: RetrievalTool[];
  queries: RetrievalQuery[];
  files: string[];
}

export interface RetrievalMetrics {
  queries: number;
  recallAt1: number;
  recallAt5: number;
  recallAt10: number;
  ndcgAt10: number;
}

export function loadBfclRetrievalSet(dir?: string): RetrievalSet | undefined;

export function retrievalMetrics(queries: RetrievalQuery[], rank: (text: string) => string[]): RetrievalMetrics;
