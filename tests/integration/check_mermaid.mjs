// Parses every ```mermaid block of a Markdown file with Mermaid's own parser
// (the npm package `mermaid`, on a jsdom window) and prints one line per
// block: "ok <diagram type>" or "bad <first line of the error>". Exits 1
// when a block does not parse, 2 when there is none.
// Usage: NODE_PATH=<dir>/node_modules node check_mermaid.mjs REPORT.md
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(process.env.NODE_PATH.split(':')[0] + '/');
const { JSDOM } = require('jsdom');
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import(require.resolve('mermaid'));

const text = readFileSync(process.argv[2], 'utf8');
const blocks = [...text.matchAll(/^(`{3,})mermaid\n([\s\S]*?)^\1$/gm)].map((m) => m[2]);
if (blocks.length === 0) {
  console.log('no mermaid block');
  process.exit(2);
}
let failed = false;
for (const block of blocks) {
  try {
    const parsed = await mermaid.parse(block);
    console.log(`ok ${parsed.diagramType}`);
  } catch (error) {
    console.log(`bad ${String(error.message).split('\n')[0]}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
