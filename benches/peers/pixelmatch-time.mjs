// Times pixelmatch 7.2.0 in process, the way `diff-peer time` times stepreplay:
//   node pixelmatch-time.mjs compare|e2e A.png B.png ITERS
// compare: only the pixelmatch() call on decoded pixels; e2e: read + decode both PNGs (pngjs)
// + pixelmatch() with no output image. Prints {"mismatched": N, "ms": [...]}.
// Run from the scratch folder that has node_modules (NODE_PATH does not apply to ESM imports).
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';

const require = createRequire(process.cwd() + '/');
const { PNG } = require('pngjs');
const pixelmatch = (await import(process.cwd() + '/node_modules/pixelmatch/index.js')).default;

const [mode, a, b, itersArg] = process.argv.slice(2);
const iters = Number(itersArg);
const ms = [];
let mismatched = 0;
if (mode === 'compare') {
  const ia = PNG.sync.read(fs.readFileSync(a));
  const ib = PNG.sync.read(fs.readFileSync(b));
  for (let i = 0; i < iters; i++) {
    const t = performance.now();
    mismatched = pixelmatch(ia.data, ib.data, null, ia.width, ia.height, { threshold: 0.1 });
    ms.push(performance.now() - t);
  }
} else if (mode === 'e2e') {
  for (let i = 0; i < iters; i++) {
    const t = performance.now();
    const ia = PNG.sync.read(fs.readFileSync(a));
    const ib = PNG.sync.read(fs.readFileSync(b));
    mismatched = pixelmatch(ia.data, ib.data, null, ia.width, ia.height, { threshold: 0.1 });
    ms.push(performance.now() - t);
  }
} else {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
console.log(JSON.stringify({ mismatched, ms: ms.map((v) => Number(v.toFixed(3))) }));
