// Generates src/gen/ from the contracts with buf and the local protoc-gen-es.
// buf is the project's (.venv/bin/buf, from `make venv`), or $BUF, or buf on the PATH.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const venvBuf = resolve(here, '..', '..', '.venv', 'bin', 'buf');
const buf = process.env.BUF || (existsSync(venvBuf) ? venvBuf : 'buf');
execFileSync(buf, ['generate'], { cwd: here, stdio: 'inherit' });
