// A stand-in for `torchlint server` in the editor tests: it answers initialize, shutdown and a request
// for source.fixAll.torchlint, exits on exit, and appends each message it gets, with its pid and argv,
// to the log named by its first argument.
'use strict';
const fs = require('fs');
const [log, ...argv] = process.argv.slice(2);
let buffer = Buffer.alloc(0);

function send(message) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }), 'utf8');
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function handle(message) {
  fs.appendFileSync(log, `${JSON.stringify({ pid: process.pid, argv, method: message.method, params: message.params })}\n`);
  if (message.method === 'initialize') {
    send({ id: message.id, result: { capabilities: { textDocumentSync: 1, codeActionProvider: { codeActionKinds: ['quickfix', 'source.fixAll.torchlint'] } }, serverInfo: { name: 'fake' } } });
  } else if (message.method === 'textDocument/codeAction') {
    // A fix-all that puts a line on top of the file, for the clients that apply one.
    const only = (message.params.context && message.params.context.only) || [];
    const uri = message.params.textDocument.uri;
    const edit = { changes: { [uri]: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: '# fixed by torchlint\n' }] } };
    send({ id: message.id, result: only.includes('source.fixAll.torchlint') ? [{ title: 'Fix all', kind: 'source.fixAll.torchlint', edit }] : [] });
  } else if (message.method === 'shutdown') {
    send({ id: message.id, result: null });
  } else if (message.method === 'exit') {
    process.exit(0);
  } else if (message.id !== undefined && message.method !== undefined) {
    send({ id: message.id, error: { code: -32601, message: `no ${message.method}` } });
  }
}

process.stdin.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const end = buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const length = Number(/Content-Length: *(\d+)/i.exec(buffer.subarray(0, end).toString('ascii'))[1]);
    if (buffer.length < end + 4 + length) return;
    handle(JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString('utf8')));
    buffer = buffer.subarray(end + 4 + length);
  }
});
process.stdin.on('end', () => process.exit(0));
