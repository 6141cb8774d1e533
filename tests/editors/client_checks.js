// The checks nvim_client.sh and emacs_eglot.sh share: what the editor saw (RESULT, written by the
// editor: its own checks, the files it opened, the first line after the fix-all) and what the fake
// server got (LOG), for a client set up with select ["TL1"] and the trace "prof", that then ran its
// fix-all and switched the trace to runs/step.json.gz.
// Usage: node client_checks.js NAME RESULT LOG PROJECT
'use strict';
const fs = require('fs');
const path = require('path');

const [name, resultFile, logFile, project] = process.argv.slice(2);
const seen = JSON.parse(fs.readFileSync(resultFile, 'utf8'));
const log = fs.existsSync(logFile)
  ? fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
  : [];
const root = fs.realpathSync(project);
const isRoot = (dir) => typeof dir === 'string' && fs.existsSync(dir) && fs.realpathSync(dir) === root;
const fromUri = (uri) => decodeURIComponent(uri.replace(/^file:\/\//, ''));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
let failures = 0;
function check(ok, what) {
  console.log((ok ? 'ok: ' : 'FAILED: ') + what);
  if (!ok) failures++;
}

check(seen.error === undefined || seen.error === null, `the editor's side ran without error${seen.error ? `: ${seen.error}` : ''}`);
for (const own of seen.checks || []) {
  check(own.ok === true, own.what);
}
check(seen.first_line === '# fixed by torchlint', `the fix-all edit is applied (first line: ${JSON.stringify(seen.first_line)})`);

const starts = log.filter((m) => m.method === 'initialize');
check(starts.length === 1, `one server was started (${starts.length})`);
const init = starts[0];
check(init !== undefined && same(init.argv, ['server']), 'the server runs as `torchlint server`');
if (init) {
  check(isRoot(fromUri(init.params.rootUri)), 'initialize names the project root');
  const opts = init.params.initializationOptions || {};
  check(same(opts.select, ['TL1']) && opts.ignore === undefined && opts.unsafeFixes === false,
    `initializationOptions carry the settings, empty ones left out: ${JSON.stringify(opts)}`);
  check(typeof opts.trace === 'string' && isRoot(path.dirname(opts.trace)) && path.basename(opts.trace) === 'prof',
    'the trace is made absolute from the project root');
}
const opened = log.filter((m) => m.method === 'textDocument/didOpen').map((m) => path.basename(fromUri(m.params.textDocument.uri)));
check(same([...opened].sort(), [...(seen.opened || [])].sort()), `the server got didOpen for ${(seen.opened || []).join(', ')}: ${opened.join(', ')}`);
const changes = log.filter((m) => m.method === 'workspace/didChangeConfiguration' && m.params.settings && m.params.settings.torchlint);
check(changes.length >= 1 && same(changes[0].params.settings.torchlint.select, ['TL1']),
  'didChangeConfiguration sends params.settings.torchlint once the server is up');
const last = changes[changes.length - 1];
check(last !== undefined && String(last.params.settings.torchlint.trace).endsWith('/runs/step.json.gz'),
  'switching the trace sends the new one');
const fix = log.find((m) => m.method === 'textDocument/codeAction');
check(fix !== undefined && same(fix.params.context.only, ['source.fixAll.torchlint']), 'the fix-all asks for source.fixAll.torchlint');
check(log.some((m) => m.method === 'shutdown'), 'the server is shut down at the end');
if (failures > 0) {
  console.log(`${name}: ${failures} check(s) failed`);
  process.exit(1);
}
console.log(`${name}: passed`);
