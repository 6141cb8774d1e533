// Activates the packaged extension outside VS Code and checks what it tells the server.
// A stand-in for the `vscode` module gives the few APIs the test looks at real behaviour (settings,
// folders, watchers, commands) and answers every other call with an inert stub. The server is
// fake_server.js, run as `torchlint.path`; it writes each message it gets to a log.
// Usage: node vscode_smoke.js EXTENSION_DIR WORK_DIR   (EXTENSION_DIR: the .vsix's extension/ folder)
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const Module = require('module');

const [extensionDir, workDir] = process.argv.slice(2);
const folder = path.join(workDir, 'project');
const log = path.join(workDir, 'server.log');
fs.mkdirSync(folder, { recursive: true });
const server = path.join(workDir, 'fake-torchlint');
fs.writeFileSync(server, `#!/bin/sh\nexec "${process.execPath}" "${path.join(__dirname, 'fake_server.js')}" "${log}" "$@"\n`);
fs.chmodSync(server, 0o755);

// Anything not given below: a callable, constructible, iterable no-op whose members are the same.
function stub(name) {
  return new Proxy(function () {}, {
    get(target, key) {
      if (key === 'prototype') return target.prototype;
      if (key === Symbol.iterator) return function* () {};
      if (key === Symbol.toPrimitive) return () => `<${name}>`;
      if (key === 'then') return undefined;
      return stub(`${name}.${String(key)}`);
    },
    apply: () => stub(`${name}()`),
    construct: () => stub(`new ${name}`),
  });
}
function withStubs(object, name) {
  return new Proxy(object, {
    get: (target, key) => (key in target ? target[key] : stub(`${name}.${String(key)}`)),
  });
}

class Uri {
  constructor(fsPath) { this.fsPath = fsPath; this.path = fsPath; this.scheme = 'file'; }
  static file(p) { return new Uri(p); }
  static parse(s) { return new Uri(s.replace(/^file:\/\//, '')); }
  toString() { return `file://${this.path}`; }
}
class RelativePattern {
  constructor(base, pattern) { this.baseUri = base; this.base = base.fsPath; this.pattern = pattern; }
}
class EventEmitter {
  constructor() { this.listeners = []; this.event = (l) => { this.listeners.push(l); return { dispose() {} }; }; }
  fire(e) { for (const l of this.listeners) l(e); }
  dispose() {}
}

const settings = {
  path: server,
  select: ['TL1'],
  ignore: [],
  targetTorch: '2.4',
  unsafeFixes: false,
  trace: 'prof',
};
const configChanged = new EventEmitter();
const watchers = [];
const commands = {};
const errors = [];
const updates = [];
// SMOKE_DEBUG=1 shows what the client writes to its output channel.
const debug = (line) => { if (process.env.SMOKE_DEBUG) console.error(line); };
function configuration(section) {
  const prefix = section ? `${section}.` : '';
  const lookup = (key) => {
    const full = prefix + key;
    if (full === 'torchlint') return { ...settings };
    if (full.startsWith('torchlint.')) return settings[full.slice('torchlint.'.length)];
    return undefined;
  };
  return withStubs({
    get: (key, fallback) => (lookup(key) === undefined ? fallback : lookup(key)),
    has: (key) => lookup(key) !== undefined,
    update: async (key, value, target) => {
      updates.push({ key: prefix + key, value, target });
      settings[key] = value;
      configChanged.fire({ affectsConfiguration: (s) => s === 'torchlint' || s === prefix + key });
    },
  }, 'configuration');
}
const disposable = { dispose() {} };
const vscode = withStubs({
  version: '1.82.0',
  Uri,
  RelativePattern,
  EventEmitter,
  Disposable: class { constructor(f) { this.dispose = f ?? (() => {}); } static from() { return disposable; } },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  workspace: withStubs({
    workspaceFolders: [{ uri: Uri.file(folder), name: 'project', index: 0 }],
    textDocuments: [],
    getConfiguration: configuration,
    onDidChangeConfiguration: configChanged.event,
    createFileSystemWatcher: (pattern) => {
      const w = withStubs({ pattern, disposed: false, dispose() { this.disposed = true; } }, 'watcher');
      watchers.push(w);
      return w;
    },
  }, 'workspace'),
  window: withStubs({
    createOutputChannel: (name) => withStubs({ name, appendLine: debug, append: debug, dispose() {} }, 'output'),
    showErrorMessage: async (m) => { errors.push(m); },
    showWarningMessage: async (m) => { errors.push(m); },
    showInformationMessage: async () => undefined,
    // The pickers answer "A folder of traces", then the folder prof2 of the project.
    showQuickPick: async (items) => items.find((item) => item.folder),
    showOpenDialog: async (options) => (options.canSelectFolders ? [Uri.file(path.join(folder, 'prof2'))] : undefined),
  }, 'window'),
  commands: withStubs({
    registerCommand: (id, f) => { commands[id] = f; return disposable; },
  }, 'commands'),
}, 'vscode');

const load = Module._load;
Module._load = function (request, ...rest) {
  return request === 'vscode' ? vscode : load.call(this, request, ...rest);
};

// The messages the servers logged so far; a line still being written is left for the next look.
function messages() {
  if (!fs.existsSync(log)) return [];
  const lines = fs.readFileSync(log, 'utf8').split('\n');
  lines.pop();
  return lines.map((line) => JSON.parse(line));
}
// Waits until the server has got `count` messages that pass `test`, and gives back the last.
async function until(what, test, count = 1) {
  for (let i = 0; i < 400; i++) {
    const found = messages().filter(test);
    if (found.length >= count) return found[found.length - 1];
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the server never got ${what}; it got: ${messages().map((m) => m.method).join(', ')}`);
}
const method = (name) => (m) => m.method === name;
// Waits until the nth server started has had its settings pushed: the client sends them once it is
// up, and that is the last step of its start. Changing things before then races with the start.
async function settled(nth) {
  const start = await until(`initialize number ${nth}`, method('initialize'), nth);
  await until(`the settings at server ${nth}`, (m) => m.pid === start.pid && m.method === 'workspace/didChangeConfiguration');
}

async function main() {
  const entry = require(path.join(extensionDir, 'package.json')).main;
  const extension = require(path.join(extensionDir, entry));
  const context = { subscriptions: [], extensionPath: extensionDir, asAbsolutePath: (p) => path.join(extensionDir, p) };
  await extension.activate(context);
  assert.deepStrictEqual(errors, [], 'no error shown on start');

  assert.deepStrictEqual(Object.keys(commands).sort(), ['torchlint.pickTrace', 'torchlint.restart']);

  const started = await until('initialize', method('initialize'));
  assert.deepStrictEqual(started.argv, ['server'], 'the server runs as `torchlint server`');
  assert.deepStrictEqual(started.params.initializationOptions, {
    select: ['TL1'],
    targetTorch: '2.4',
    unsafeFixes: false,
    trace: path.join(folder, 'prof'),
  }, 'initializationOptions: the settings, empty ones left out, the trace made absolute');
  await settled(1);

  const patterns = watchers.map((w) => (typeof w.pattern === 'string' ? w.pattern : `${w.pattern.base}|${w.pattern.pattern}`));
  assert.deepStrictEqual(patterns, [
    '**/{pyproject.toml,torchlint.toml}',
    `${folder}|prof`,
    `${path.join(folder, 'prof')}|**/*`,
  ], 'watchers: the config files, and the trace as a file or as a folder');

  settings.ignore = ['TL401'];
  settings.unsafeFixes = true;
  configChanged.fire({ affectsConfiguration: (s) => s === 'torchlint' || s === 'torchlint.ignore' || s === 'torchlint.unsafeFixes' });
  const changed = await until('a didChangeConfiguration with the new settings',
    (m) => m.method === 'workspace/didChangeConfiguration' && m.params.settings.torchlint.ignore !== undefined);
  assert.deepStrictEqual(changed.params.settings, {
    torchlint: { select: ['TL1'], ignore: ['TL401'], targetTorch: '2.4', unsafeFixes: true, trace: path.join(folder, 'prof') },
  }, 'didChangeConfiguration: params.settings.torchlint, as in initializationOptions');

  // A new trace means new watchers: the client restarts, and the old watchers go.
  const before = watchers.slice();
  settings.trace = '${workspaceFolder}/runs/step.json.gz';
  configChanged.fire({ affectsConfiguration: (s) => s === 'torchlint' || s === 'torchlint.trace' });
  const restarted = await until('a second initialize', method('initialize'), 2);
  assert.strictEqual(restarted.params.initializationOptions.trace, path.join(folder, 'runs', 'step.json.gz'));
  await until('the first client\'s shutdown and exit', method('exit'));
  assert.ok(before.every((w) => w.disposed), 'the first client\'s watchers are disposed');
  await settled(2);
  const after = watchers.filter((w) => !w.disposed).map((w) => w.pattern.pattern ?? w.pattern);
  assert.deepStrictEqual(after, ['**/{pyproject.toml,torchlint.toml}', 'step.json.gz', '**/*'], 'the new client watches the new trace');

  // Picking a trace writes it, relative to the folder, in the workspace settings; the server restarts on it.
  await commands['torchlint.pickTrace']();
  assert.deepStrictEqual(updates, [{ key: 'torchlint.trace', value: 'prof2', target: 2 }],
    'pickTrace writes torchlint.trace in the workspace settings, relative to the folder');
  const third = await until('a third initialize', method('initialize'), 3);
  assert.strictEqual(third.params.initializationOptions.trace, path.join(folder, 'prof2'));
  await settled(3);

  await extension.deactivate();
  await until('a third shutdown', method('shutdown'), 3);
  await until('a third exit', method('exit'), 3);
  assert.ok(watchers.every((w) => w.disposed), 'no watcher is left after deactivate');
  // Per server process: the end is shutdown then exit, with nothing between or after.
  const pids = [...new Set(messages().map((m) => m.pid))];
  assert.strictEqual(pids.length, 3, 'three server processes, one for each start');
  for (const pid of pids) {
    const ended = messages().filter((m) => m.pid === pid).map((m) => m.method);
    assert.deepStrictEqual(ended.slice(ended.indexOf('shutdown')), ['shutdown', 'exit'], `server ${pid}: ${ended.join(', ')}`);
  }
  assert.deepStrictEqual(errors, [], 'no error shown at all');
  console.log('vscode_smoke: the packaged extension starts `torchlint server`, sends its settings, and restarts on a new or picked trace');
}

main().then(() => process.exit(0), (error) => {
  console.error(`vscode_smoke: ${error.stack ?? error}`);
  process.exit(1);
});
