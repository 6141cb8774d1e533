// Drives `torchlint server` through vscode-languageserver-protocol, the client library VS Code uses:
// initialize, diagnostics, incremental edits (and a burst of them), code actions applied (quick fix,
// fix all, noqa, profiler in and out), hover, pull diagnostics, a configuration change, a trace set
// and watched, a change in another module, cancellation, bad requests, shutdown and exit.
//   node client_test.mjs TORCHLINT_EXE SOURCE_DIR
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import rpcModule from 'vscode-languageserver-protocol/node';
const rpc = rpcModule;

const [exe, sourceDir] = process.argv.slice(2);
const project = fs.mkdtempSync(path.join(os.tmpdir(), 'torchlint-lsp-'));
const uriOf = (p) => pathToFileURL(p).href;

// The CUDA loop of data/train_cuda.py, calling a helper of the project on every step.
const TRAIN = fs.readFileSync(path.join(sourceDir, 'tests', 'lsp', 'data', 'train_cuda.py'), 'utf8')
  .replace('from torch.utils.data import DataLoader\n', 'from torch.utils.data import DataLoader\nfrom helpers import log_loss\n') +
  '    log_loss(loss)\n';
fs.writeFileSync(path.join(project, 'pyproject.toml'), '[project]\nname = "demo"\n');
fs.writeFileSync(path.join(project, 'helpers.py'), "def log_loss(loss):\n    print('step')\n");
const trainPath = path.join(project, 'train.py');
fs.writeFileSync(trainPath, TRAIN);
const trainUri = uriOf(trainPath);

const child = spawn(exe, ['server'], { stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';
child.stderr.on('data', (d) => { stderr += d; });
const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
const connection = rpc.createProtocolConnection(new rpc.StreamMessageReader(child.stdout),
                                                new rpc.StreamMessageWriter(child.stdin));
const published = new Map();  // uri -> [params...]
const waiters = [];
const logs = [];
connection.onNotification(rpc.PublishDiagnosticsNotification.type, (params) => {
  if (!published.has(params.uri)) published.set(params.uri, []);
  published.get(params.uri).push(params);
  for (const w of [...waiters]) w();
});
connection.onNotification(rpc.LogMessageNotification.type, (params) => { logs.push(params.message); });
connection.onRequest(rpc.RegistrationRequest.type, () => null);
connection.listen();

function waitFor(uri, predicate, what, timeoutMs = 15000) {
  return new Promise((resolve, reject) => {
    const check = () => {
      const list = published.get(uri) || [];
      const hit = list.length > 0 && predicate(list[list.length - 1]) ? list[list.length - 1] : null;
      if (hit) {
        waiters.splice(waiters.indexOf(check), 1);
        clearTimeout(timer);
        resolve(hit);
      }
    };
    const timer = setTimeout(() => {
      waiters.splice(waiters.indexOf(check), 1);
      reject(new Error(`timed out waiting for ${what}; last: ${JSON.stringify((published.get(uri) || []).at(-1))}`));
    }, timeoutMs);
    waiters.push(check);
    check();
  });
}
const codes = (p) => p.diagnostics.map((d) => d.code).sort();

// Applies LSP TextEdits (utf-16 positions) to a text, as an editor does.
function offsetAt(text, pos) {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < pos.line && i < lines.length; ++i) offset += lines[i].length + 1;
  return Math.min(offset + pos.character, text.length);
}
function applyEdits(text, edits) {
  const sorted = [...edits].sort((a, b) => offsetAt(text, b.range.start) - offsetAt(text, a.range.start));
  for (const e of sorted) {
    text = text.slice(0, offsetAt(text, e.range.start)) + e.newText + text.slice(offsetAt(text, e.range.end));
  }
  return text;
}
function editsOf(action, uri) {
  const edit = action.edit;
  if (edit.documentChanges) return edit.documentChanges.find((c) => c.textDocument.uri === uri).edits;
  return edit.changes[uri];
}

let text = TRAIN;
let version = 1;
async function replaceAll(newText) {
  text = newText;
  version += 1;
  await connection.sendNotification(rpc.DidChangeTextDocumentNotification.type, {
    textDocument: { uri: trainUri, version }, contentChanges: [{ text }] });
  return version;
}

let passed = 0;
async function step(name, body) {
  await body();
  passed += 1;
  console.log(`ok ${passed} - ${name}`);
}

try {
  await step('initialize negotiates utf-16 and the capabilities', async () => {
    const result = await connection.sendRequest(rpc.InitializeRequest.type, {
      processId: process.pid, rootUri: uriOf(project),
      capabilities: { general: { positionEncodings: ['utf-16'] },
                      workspace: { workspaceEdit: { documentChanges: true },
                                   didChangeWatchedFiles: { dynamicRegistration: true } },
                      textDocument: { diagnostic: { dynamicRegistration: false } } },
      initializationOptions: { unsafeFixes: false } });
    assert.equal(result.capabilities.positionEncoding, 'utf-16');
    assert.equal(result.capabilities.textDocumentSync.change, 2);
    assert.ok(result.capabilities.codeActionProvider.codeActionKinds.includes('source.fixAll.torchlint'));
    assert.equal(result.serverInfo.name, 'torchlint');
    await connection.sendNotification(rpc.InitializedNotification.type, {});
  });

  await step('didOpen publishes the findings with version, code, docs link and fix data', async () => {
    await connection.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
      textDocument: { uri: trainUri, languageId: 'python', version: 1, text } });
    const p = await waitFor(trainUri, (q) => q.version === 1, 'the first diagnostics');
    assert.deepEqual(codes(p), ['TL101', 'TL202']);
    const pin = p.diagnostics.find((d) => d.code === 'TL202');
    assert.equal(pin.source, 'torchlint');
    assert.equal(pin.severity, 2);
    assert.equal(pin.range.start.line, 6);
    assert.match(pin.codeDescription.href, /TL202\.md$/);
    assert.equal(pin.data.fix.applicability, 'safe');
  });

  await step('an incremental edit drops the TL101 it removes', async () => {
    const line = text.split('\n').findIndex((l) => l.includes('print(loss.item())'));
    const col = text.split('\n')[line].indexOf('print');
    version += 1;
    await connection.sendNotification(rpc.DidChangeTextDocumentNotification.type, {
      textDocument: { uri: trainUri, version },
      contentChanges: [{ range: { start: { line, character: col }, end: { line, character: col + 18 } }, text: 'pass' }] });
    text = applyEdits(text, [{ range: { start: { line, character: col }, end: { line, character: col + 18 } }, newText: 'pass' }]);
    const p = await waitFor(trainUri, (q) => q.version === version, 'diagnostics of the edit');
    assert.deepEqual(codes(p), ['TL202']);
  });

  await step('a burst of edits: the last version is checked, no older one is published after it', async () => {
    const before = (published.get(trainUri) || []).length;
    for (let i = 0; i < 30; ++i) {
      version += 1;
      await connection.sendNotification(rpc.DidChangeTextDocumentNotification.type, {
        textDocument: { uri: trainUri, version },
        contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '#' }] });
      text = '#' + text;
    }
    const last = await waitFor(trainUri, (q) => q.version === version, 'the last version');
    const burst = published.get(trainUri).slice(before);
    assert.ok(burst.length <= 30, `${burst.length} publications for 30 edits`);
    // A version may be published twice (checked again once its own summary was made, when that changed
    // its findings), never after a newer one.
    for (let i = 1; i < burst.length; ++i) assert.ok(burst[i].version >= burst[i - 1].version, 'no older version after a newer one');
    assert.deepEqual(codes(last), ['TL202']);
    await replaceAll(text.replace(/^#+/, ''));
    await waitFor(trainUri, (q) => q.version === version, 'the reset text');
  });

  await step('the quick fix of TL202 applies and the finding goes', async () => {
    const actions = await connection.sendRequest(rpc.CodeActionRequest.type, {
      textDocument: { uri: trainUri }, range: { start: { line: 6, character: 0 }, end: { line: 6, character: 0 } },
      context: { diagnostics: [] } });
    const titles = actions.map((a) => a.title);
    assert.ok(titles.includes('Add `pin_memory=True`'), titles.join(', '));
    assert.ok(titles.includes('Add `# noqa: TL202`'));
    const fix = actions.find((a) => a.title === 'Add `pin_memory=True`');
    assert.equal(fix.kind, 'quickfix');
    assert.equal(fix.edit.documentChanges[0].textDocument.version, version);
    const v = await replaceAll(applyEdits(text, editsOf(fix, trainUri)));
    assert.match(text, /pin_memory=True/);
    const p = await waitFor(trainUri, (q) => q.version === v, 'diagnostics after the fix');
    assert.deepEqual(codes(p), []);
  });

  await step('noqa and fix-all actions', async () => {
    let v = await replaceAll(TRAIN);
    await waitFor(trainUri, (q) => q.version === v, 'the original text');
    const line = TRAIN.split('\n').findIndex((l) => l.includes('print(loss.item())'));
    let actions = await connection.sendRequest(rpc.CodeActionRequest.type, {
      textDocument: { uri: trainUri }, range: { start: { line, character: 0 }, end: { line, character: 0 } },
      context: { diagnostics: [], only: ['quickfix'] } });
    const noqa = actions.find((a) => a.title === 'Add `# noqa: TL101`');
    assert.ok(noqa, actions.map((a) => a.title).join(', '));
    v = await replaceAll(applyEdits(text, editsOf(noqa, trainUri)));
    assert.match(text.split('\n')[line], /print\(loss\.item\(\)\)  # noqa: TL101$/);
    let p = await waitFor(trainUri, (q) => q.version === v, 'diagnostics after noqa');
    assert.deepEqual(codes(p), ['TL202']);
    actions = await connection.sendRequest(rpc.CodeActionRequest.type, {
      textDocument: { uri: trainUri }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [], only: ['source.fixAll'] } });
    assert.deepEqual(actions.map((a) => a.kind), ['source.fixAll.torchlint']);
    v = await replaceAll(applyEdits(text, editsOf(actions[0], trainUri)));
    p = await waitFor(trainUri, (q) => q.version === v, 'diagnostics after fix all');
    assert.deepEqual(codes(p), []);
  });

  await step('the profiler goes in on the step loop and comes out byte for byte', async () => {
    const v0 = await replaceAll(TRAIN);
    await waitFor(trainUri, (q) => q.version === v0, 'the original text');
    const loopLine = TRAIN.split('\n').findIndex((l) => l.startsWith('for x, y in loader'));
    let actions = await connection.sendRequest(rpc.CodeActionRequest.type, {
      textDocument: { uri: trainUri }, range: { start: { line: loopLine + 2, character: 0 }, end: { line: loopLine + 2, character: 0 } },
      context: { diagnostics: [] } });
    const insert = actions.find((a) => a.title === 'Insert profiler (template C)');
    assert.ok(insert, actions.map((a) => a.title).join(', '));
    const v = await replaceAll(applyEdits(text, editsOf(insert, trainUri)));
    assert.match(text, /torch\.profiler/);
    await waitFor(trainUri, (q) => q.version === v, 'diagnostics of the instrumented text');
    actions = await connection.sendRequest(rpc.CodeActionRequest.type, {
      textDocument: { uri: trainUri }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [] } });
    const remove = actions.find((a) => a.title === 'Remove profiler');
    assert.ok(remove, actions.map((a) => a.title).join(', '));
    const restored = applyEdits(text, editsOf(remove, trainUri));
    assert.equal(restored, TRAIN);
    const v2 = await replaceAll(restored);
    await waitFor(trainUri, (q) => q.version === v2, 'the restored text');
  });

  await step('hover shows the rule docs; pull diagnostics answer too', async () => {
    const line = TRAIN.split('\n').findIndex((l) => l.includes('print(loss.item())'));
    const hover = await connection.sendRequest(rpc.HoverRequest.type, {
      textDocument: { uri: trainUri }, position: { line, character: 12 } });
    assert.equal(hover.contents.kind, 'markdown');
    assert.match(hover.contents.value, /TL101/);
    assert.match(hover.contents.value, /## What it does/);
    const none = await connection.sendRequest(rpc.HoverRequest.type, {
      textDocument: { uri: trainUri }, position: { line: 0, character: 0 } });
    assert.equal(none, null);
    const report = await connection.sendRequest(rpc.DocumentDiagnosticRequest.type, { textDocument: { uri: trainUri } });
    assert.equal(report.kind, 'full');
    assert.deepEqual(report.items.map((d) => d.code).sort(), ['TL101', 'TL202']);
  });

  await step('an edit of the helper module reaches the loop that calls it', async () => {
    const helperPath = path.join(project, 'helpers.py');
    const helperUri = uriOf(helperPath);
    await connection.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
      textDocument: { uri: helperUri, languageId: 'python', version: 1, text: fs.readFileSync(helperPath, 'utf8') } });
    await waitFor(helperUri, (q) => q.version === 1, 'the helper diagnostics');
    await connection.sendNotification(rpc.DidChangeTextDocumentNotification.type, {
      textDocument: { uri: helperUri, version: 2 },
      contentChanges: [{ text: 'def log_loss(loss):\n    print(loss.item())\n' }] });
    const p = await waitFor(trainUri, (q) => q.diagnostics.filter((d) => d.code === 'TL101').length === 2,
                            'a TL101 at the helper call');
    const cross = p.diagnostics.find((d) => d.code === 'TL101' && d.relatedInformation);
    assert.ok(cross, JSON.stringify(p.diagnostics));
    assert.equal(cross.relatedInformation[0].location.uri, helperUri);
    assert.equal(cross.relatedInformation[0].location.range.start.line, 1);
    await connection.sendNotification(rpc.DidCloseTextDocumentNotification.type, { textDocument: { uri: helperUri } });
    const closed = await waitFor(helperUri, (q) => q.diagnostics.length === 0 && q.version === undefined, 'cleared');
    assert.deepEqual(closed.diagnostics, []);
  });

  await step('a configuration change selects rules', async () => {
    await connection.sendNotification(rpc.DidChangeConfigurationNotification.type, { settings: { torchlint: { select: ['TL2'] } } });
    await waitFor(trainUri, (q) => codes(q).join() === 'TL202', 'TL101 deselected');
    await connection.sendNotification(rpc.DidChangeConfigurationNotification.type, { settings: { torchlint: { select: ['TL1', 'TL2'], targetTorch: 'not a version' } } });
    await waitFor(trainUri, (q) => codes(q).includes('TL101'), 'TL101 selected again');
    assert.ok(logs.some((m) => m.includes('targetTorch')), logs.join('\n'));
    // The settings are the whole section: without `select`, the config decides again.
    await connection.sendNotification(rpc.DidChangeConfigurationNotification.type, { settings: { torchlint: { unsafeFixes: false } } });
    await connection.sendNotification(rpc.DidChangeConfigurationNotification.type, { settings: {} });  // changes nothing
  });

  await step('a config file written or removed is read again when the client says it changed', async () => {
    const config = path.join(project, 'torchlint.toml');
    fs.writeFileSync(config, 'ignore = ["TL202"]\n');
    await connection.sendNotification(rpc.DidChangeWatchedFilesNotification.type, { changes: [{ uri: uriOf(config), type: 1 }] });
    await waitFor(trainUri, (q) => codes(q).join() === 'TL101', 'TL202 ignored by torchlint.toml');
    fs.writeFileSync(config, 'select = [\n');  // broken: the problem is said, and the defaults apply
    await connection.sendNotification(rpc.DidChangeWatchedFilesNotification.type, { changes: [{ uri: uriOf(config), type: 2 }] });
    await waitFor(trainUri, (q) => codes(q).join() === 'TL101,TL202', 'the defaults under a broken config');
    assert.ok(logs.some((m) => m.includes('torchlint.toml')), logs.join('\n'));
    fs.rmSync(config);
    await connection.sendNotification(rpc.DidChangeWatchedFilesNotification.type, { changes: [{ uri: uriOf(config), type: 3 }] });
    await waitFor(trainUri, (q) => codes(q).join() === 'TL101,TL202', 'TL202 back');
  });

  await step('a trace: findings carry its verdict; refuted ones become hints; a watched change reloads it', async () => {
    const traces = path.join(sourceDir, 'tests', 'e2e', 'traces');
    const script = fs.readFileSync(path.join(sourceDir, 'tests', 'e2e', 'scripts', 'sync_item.py'), 'utf8');
    const scriptPath = path.join(project, 'sync_item.py');
    fs.writeFileSync(scriptPath, script);
    const traceCopy = path.join(project, 'sync_item.pt.trace.json.gz');
    fs.copyFileSync(path.join(traces, 'sync_item.pt.trace.json.gz'), traceCopy);
    const scriptUri = uriOf(scriptPath);
    await connection.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
      textDocument: { uri: scriptUri, languageId: 'python', version: 1, text: script } });
    await connection.sendNotification(rpc.DidChangeConfigurationNotification.type, { settings: { torchlint: { trace: traceCopy } } });
    const p = await waitFor(scriptUri, (q) => q.diagnostics.some((d) => d.data && d.data.verdict), 'verdicts');
    const item = p.diagnostics.find((d) => d.code === 'TL101');
    assert.equal(item.data.verdict, 'refuted');
    assert.equal(item.severity, 4);
    assert.match(item.message, /refuted/);
    // The trace file changes on disk (a new profile of another script): the server reads it again.
    fs.copyFileSync(path.join(traces, 'pin_memory.pt.trace.json.gz'), traceCopy);
    const count = logs.length;
    await connection.sendNotification(rpc.DidChangeWatchedFilesNotification.type, {
      changes: [{ uri: uriOf(traceCopy), type: 2 }] });
    for (let i = 0; i < 300 && !logs.slice(count).some((m) => m.includes('now checked against')); ++i) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(logs.slice(count).some((m) => m.includes('now checked against')), logs.slice(count).join('\n'));
    // A trace that cannot be read is said, and findings lose their verdicts.
    fs.writeFileSync(traceCopy, 'not a trace');
    await connection.sendNotification(rpc.DidChangeWatchedFilesNotification.type, {
      changes: [{ uri: uriOf(traceCopy), type: 2 }] });
    await waitFor(scriptUri, (q) => q.diagnostics.length > 0 && !q.diagnostics.some((d) => d.data && d.data.verdict), 'no verdicts');
    assert.ok(logs.some((m) => m.includes('cannot be used')), logs.join('\n'));
    await connection.sendNotification(rpc.DidChangeConfigurationNotification.type, { settings: { torchlint: { trace: '' } } });
    await connection.sendNotification(rpc.DidCloseTextDocumentNotification.type, { textDocument: { uri: scriptUri } });
  });

  await step('cancellation: a cancelled request is answered with RequestCancelled or its result', async () => {
    const source = new rpc.CancellationTokenSource();
    const pending = [];
    for (let i = 0; i < 20; ++i) {
      pending.push(connection.sendRequest(rpc.DocumentDiagnosticRequest.type, { textDocument: { uri: trainUri } }));
    }
    const cancelled = connection.sendRequest(rpc.DocumentDiagnosticRequest.type, { textDocument: { uri: trainUri } }, source.token);
    source.cancel();
    await Promise.all(pending);
    try {
      const r = await cancelled;
      assert.equal(r.kind, 'full');
    } catch (e) {
      assert.equal(e.code, rpc.LSPErrorCodes.RequestCancelled);
    }
  });

  await step('bad requests get JSON-RPC errors and the server keeps serving', async () => {
    await assert.rejects(connection.sendRequest('torchlint/unknown', {}), (e) => e.code === rpc.ErrorCodes.MethodNotFound);
    await assert.rejects(connection.sendRequest(rpc.DocumentDiagnosticRequest.type, { textDocument: { uri: uriOf('/never/opened.py') } }),
                         (e) => e.code === rpc.ErrorCodes.InvalidParams);
    const hover = await connection.sendRequest(rpc.HoverRequest.type, {
      textDocument: { uri: trainUri }, position: { line: 9999, character: 9999 } });
    assert.equal(hover, null);
    const again = await connection.sendRequest(rpc.DocumentDiagnosticRequest.type, { textDocument: { uri: trainUri } });
    assert.equal(again.kind, 'full');
  });

  await step('shutdown, then exit with status 0', async () => {
    assert.equal(await connection.sendRequest(rpc.ShutdownRequest.type), null);
    await connection.sendNotification(rpc.ExitNotification.type);
    assert.equal(await exited, 0);
  });
  console.log(`all ${passed} steps passed`);
  fs.rmSync(project, { recursive: true, force: true });
  process.exit(0);
} catch (e) {
  console.error(`FAILED: ${e.stack || e}`);
  if (stderr) console.error(`server stderr:\n${stderr}`);
  child.kill();
  process.exit(1);
}
