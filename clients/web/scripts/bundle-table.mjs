// Bundles the web table (table/src/main.ts and the client it uses) into
// table/dist/app.js with esbuild, beside a copy of index.html and style.css.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const table = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'table');
const dist = resolve(table, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
const result = await build({
  entryPoints: [resolve(table, 'src', 'main.ts')],
  outfile: resolve(dist, 'app.js'),
  bundle: true,
  format: 'esm',
  target: ['es2022'],
  minify: true,
  sourcemap: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});
for (const file of ['index.html', 'style.css']) copyFileSync(resolve(table, file), resolve(dist, file));
const bytes = result.metafile.outputs[Object.keys(result.metafile.outputs).find((f) => f.endsWith('app.js'))].bytes;
console.log(`table/dist/app.js: ${bytes} bytes`);
