// Tool-search quality on real questions: the retrieval set derived from ../shared/realdata/bfcl
// (bench/lib/bfcl-retrieval.js: each question with a ground truth → the functions it calls) over one
// index of every BFCL function. Recall@1/5/10 and nDCG@10 of toolshed's index, beside MiniSearch
// (BM25, name boosted; its prefix and fuzzy options cost recall here, 0.74 against 0.77 at recall@5 on
// the first 300 queries, and triple its time) and plain keyword overlap on the same text.
import MiniSearch from 'minisearch';
import { ToolSearchIndex } from '../../dist/index.js';
import { loadBfclRetrievalSet, retrievalMetrics } from '../lib/bfcl-retrieval.js';
import { check, runCase } from '../lib/case.js';
import { median } from '../lib/timing.js';

/**
 * Parameter names, descriptions and allowed values, as toolshed's index reads them, so every ranking
 * here sees the same text.
 *
 * @param {import('../lib/bfcl-retrieval.js').RetrievalTool} tool
 */
function parameterText(tool) {
  return Object.entries(tool.inputSchema.properties)
    .map(([key, schema]) =>
      [
        key,
        typeof schema?.description === 'string' ? schema.description : '',
        ...(Array.isArray(schema?.enum) ? schema.enum.filter((value) => typeof value === 'string') : []),
      ].join(' '),
    )
    .join(' ');
}

/** @param {string} text */
function words(text) {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

await runCase('search-bfcl', async () => {
  const set = loadBfclRetrievalSet();
  if (set === undefined) return { skipped: '../shared/realdata/bfcl is absent' };
  check(set.queries.length > 1000, `only ${set.queries.length} queries were derived`);

  const index = new ToolSearchIndex();
  for (const tool of set.tools) index.add(/** @type {any} */ (tool));
  check(index.size === set.tools.length, `the index holds ${index.size} tools, not ${set.tools.length}`);
  const queryMs = [];
  const toolshed = retrievalMetrics(set.queries, (text) => {
    const start = performance.now();
    const names = index.search(text, { limit: 10 }).map((hit) => hit.name);
    queryMs.push(performance.now() - start);
    return names;
  });

  const miniSearch = new MiniSearch({
    idField: 'name',
    fields: ['name', 'description', 'parameters'],
    searchOptions: { boost: { name: 3 } },
  });
  miniSearch.addAll(set.tools.map((tool) => ({ ...tool, parameters: parameterText(tool) })));
  const peer = retrievalMetrics(set.queries, (text) =>
    miniSearch
      .search(text)
      .slice(0, 10)
      .map((result) => String(result.id)),
  );

  const toolWords = set.tools.map((tool) => ({
    name: tool.name,
    words: new Set(words(`${tool.name} ${tool.description} ${parameterText(tool)}`)),
  }));
  const overlap = retrievalMetrics(set.queries, (text) => {
    const query = [...new Set(words(text))];
    return toolWords
      .map((tool) => ({ name: tool.name, shared: query.filter((word) => tool.words.has(word)).length }))
      .filter((entry) => entry.shared > 0)
      .sort((left, right) => right.shared - left.shared)
      .slice(0, 10)
      .map((entry) => entry.name);
  });

  return {
    tools: set.tools.length,
    queries: set.queries.length,
    files: set.files,
    toolshed,
    miniSearch: peer,
    keywordOverlap: overlap,
    queryP50Ms: median(queryMs),
  };
});
