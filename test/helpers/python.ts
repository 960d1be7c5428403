import { spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../server/boot/package-info.js';
import { MAIN } from './cli.js';

/**
 * Debian's interpreter, which the apt packages (python3-pytest, python3-pytest-xdist, python3-pip)
 * belong to: a python3 earlier on PATH, such as a pyenv one, would not see them.
 */
export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** Why the Python tests cannot run here, or false when they can. */
export function pythonMissing(): string | false {
  const probe = spawnSync(PYTHON, ['-c', 'import venv, ensurepip'], { encoding: 'utf8' });
  if (probe.status === 0) return false;
  return `python3-venv is missing (${PYTHON}): apt-get install python3-venv python3-pip python3-pytest python3-pytest-xdist, as .ci/run does`;
}

/** The server as a wrapper shell starts it and stays its parent, as npx does: stopping the wrapper alone would orphan it. */
export const WRAPPED_SERVER = `sh -c '"$0" "$@"; exit $?' ${process.execPath} ${MAIN}`;

function run(command: string, args: string[], what: string): void {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`${what} failed (${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
}

/**
 * A fresh venv in `dir` with python/ installed by pip, as the README says, offline: the venv sees
 * Debian's packages (pytest, xdist, setuptools, pip), so nothing is downloaded. A copy of python/ is
 * installed, so that the build leaves nothing in the tree. Answers the venv's interpreter and the copy.
 */
export function pluginVenv(dir: string): { python: string; source: string } {
  const source = join(dir, 'src');
  cpSync(join(packageRoot(), 'python'), source, {
    recursive: true,
    filter: (path) => !/(^|\/)(build|__pycache__|[^/]*\.egg-info)$/.test(path),
  });
  const venv = join(dir, 'venv');
  run(PYTHON, ['-m', 'venv', '--system-site-packages', '--without-pip', venv], 'creating the venv');
  const python = join(venv, 'bin', 'python');
  run(python, ['-m', 'pip', 'install', '--quiet', '--no-build-isolation', '--no-deps', '--no-index', source], 'pip install ./python');
  return { python, source };
}

export interface PytestCase {
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
  detail: string;
}

/** The test cases of a pytest --junitxml report. */
export function junitCases(xml: string): PytestCase[] {
  const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
  return [...xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map(([, attrs, body = '']) => {
    const name = unescape(/\bname="([^"]*)"/.exec(attrs)?.[1] ?? '?');
    const failure = /<(failure|error)\b[^>]*?(?:message="([^"]*)")?[^>]*>/.exec(body);
    if (failure) return { name, outcome: 'failed', detail: unescape(body) };
    const skipped = /<skipped\b[^>]*?message="([^"]*)"/.exec(body);
    if (skipped || /<skipped\b/.test(body)) return { name, outcome: 'skipped', detail: unescape(skipped?.[1] ?? '') };
    return { name, outcome: 'passed', detail: '' };
  });
}
