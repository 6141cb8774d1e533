// The torchlint extension: starts `torchlint server` over stdio and keeps it in step with the
// `torchlint.*` settings, the config files and the profiler trace the findings are checked against.
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from 'vscode-languageclient/node';

const SECTION = 'torchlint';

let client: LanguageClient | undefined;
// The client's synchronize.fileEvents: it unhooks them when it stops, but leaves them to us to dispose.
let watchers: vscode.FileSystemWatcher[] = [];
let output: vscode.OutputChannel | undefined;
// Starts and stops run one after another, however fast the settings change.
let pending: Promise<void> = Promise.resolve();

/** The settings the server reads, as in its initializationOptions and didChangeConfiguration. */
export interface ServerSettings {
  select?: string[];
  ignore?: string[];
  targetTorch?: string;
  unsafeFixes: boolean;
  trace?: string;
}

function baseFolder(): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.workspaceFolders?.[0];
}

/** A trace setting as an absolute path: `${workspaceFolder}` and relative paths are taken from the first folder. */
export function resolveTrace(value: string, folder: string | undefined): string | undefined {
  let trace = value.trim();
  if (trace === '') {
    return undefined;
  }
  if (folder !== undefined) {
    trace = trace.replace(/\$\{workspaceFolder\}/g, folder);
  }
  if (trace.startsWith('~/')) {
    trace = path.join(os.homedir(), trace.slice(2));
  }
  if (!path.isAbsolute(trace) && folder !== undefined) {
    trace = path.join(folder, trace);
  }
  return path.normalize(trace);
}

function nonEmpty(list: string[] | undefined): string[] | undefined {
  const kept = (list ?? []).map((s) => s.trim()).filter((s) => s !== '');
  return kept.length > 0 ? kept : undefined;
}

/** The `torchlint` section as the server wants it. Unset settings are left out, so the config files decide. */
export function serverSettings(): ServerSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const targetTorch = config.get<string>('targetTorch', '').trim();
  const settings: ServerSettings = {
    select: nonEmpty(config.get<string[]>('select')),
    ignore: nonEmpty(config.get<string[]>('ignore')),
    targetTorch: targetTorch !== '' ? targetTorch : undefined,
    unsafeFixes: config.get<boolean>('unsafeFixes', false),
    trace: resolveTrace(config.get<string>('trace', ''), baseFolder()?.uri.fsPath),
  };
  for (const key of Object.keys(settings) as (keyof ServerSettings)[]) {
    if (settings[key] === undefined) {
      delete settings[key];
    }
  }
  return settings;
}

/** Watchers for the config files and for the trace, a file or a folder of them. */
function fileWatchers(): vscode.FileSystemWatcher[] {
  const list = [vscode.workspace.createFileSystemWatcher('**/{pyproject.toml,torchlint.toml}')];
  const trace = serverSettings().trace;
  if (trace !== undefined) {
    // Whether it names a file or a folder, one of the two patterns matches it.
    list.push(
      vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(vscode.Uri.file(path.dirname(trace)), path.basename(trace)),
      ),
      vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(trace), '**/*')),
    );
  }
  return list;
}

function createClient(fileEvents: vscode.FileSystemWatcher[]): LanguageClient {
  const executable = vscode.workspace.getConfiguration(SECTION).get<string>('path', 'torchlint').trim() || 'torchlint';
  // No transport: with one the client would append `--stdio`, and the server is plain `torchlint server`.
  const run = { command: executable, args: ['server'] };
  const serverOptions: ServerOptions = { run, debug: run };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
    ],
    outputChannel: output,
    // A function, so that each start, restarts included, reads the settings afresh.
    initializationOptions: () => serverSettings(),
    synchronize: {
      configurationSection: SECTION,
      fileEvents,
    },
    middleware: {
      workspace: {
        // Sends the section as the server reads it (`params.settings.torchlint`, the trace resolved)
        // rather than the raw settings, and only while this client is the current one and runs: a
        // retired client may be stopping, and sending to one that is not running would start it again.
        didChangeConfiguration: async () => {
          if (self === client && self.isRunning()) {
            await self.sendNotification(DidChangeConfigurationNotification.type, {
              settings: { [SECTION]: serverSettings() },
            });
          }
        },
      },
    },
  };
  const self = new LanguageClient(SECTION, 'torchlint', serverOptions, clientOptions);
  return self;
}

async function startClient(): Promise<void> {
  watchers = fileWatchers();
  try {
    client = createClient(watchers);
    await client.start();
  } catch (error) {
    const executable = vscode.workspace.getConfiguration(SECTION).get<string>('path', 'torchlint');
    void vscode.window.showErrorMessage(
      `torchlint: could not start \`${executable} server\` (${String(error)}). Set \`torchlint.path\` to the torchlint executable.`,
    );
  }
}

/**
 * Takes the running client out at once, so that nothing more is sent to it, and gives back the
 * step that stops it and disposes its watchers.
 */
function retire(): () => Promise<void> {
  const previous = client;
  const previousWatchers = watchers;
  client = undefined;
  watchers = [];
  return async () => {
    try {
      await previous?.dispose();
    } catch {
      // A server that failed to start cannot be stopped; it is dropped all the same.
    }
    for (const watcher of previousWatchers) {
      watcher.dispose();
    }
  };
}

function queue(step: () => Promise<void>): Promise<void> {
  pending = pending.then(step).catch((error) => output?.appendLine(`torchlint: ${String(error)}`));
  return pending;
}

/** Takes the current client out now, then queues its stop and `next` (a start, or nothing). */
function replace(next?: () => Promise<void>): Promise<void> {
  const stop = retire();
  return queue(async () => {
    await stop();
    // A client that an earlier restart started while this one waited in the queue.
    await retire()();
    await next?.();
  });
}

function restart(): Promise<void> {
  return replace(startClient);
}

/** Asks for a trace file or folder and writes it as `torchlint.trace` in the workspace settings. */
async function pickTrace(): Promise<void> {
  const kind = await vscode.window.showQuickPick(
    [
      { label: 'A trace file', description: '.json or .json.gz', folder: false },
      { label: 'A folder of traces', description: 'as the profiler writes them', folder: true },
    ],
    { title: 'torchlint: Pick a profiler trace' },
  );
  if (kind === undefined) {
    return;
  }
  const folder = baseFolder();
  const picked = await vscode.window.showOpenDialog({
    title: 'torchlint: Pick a profiler trace',
    canSelectFiles: !kind.folder,
    canSelectFolders: kind.folder,
    canSelectMany: false,
    defaultUri: folder?.uri,
    filters: kind.folder ? undefined : { 'Kineto traces': ['json', 'gz'] },
  });
  if (picked === undefined || picked.length === 0) {
    return;
  }
  let value = picked[0].fsPath;
  if (folder !== undefined) {
    const relative = path.relative(folder.uri.fsPath, value);
    if (relative === '') {
      value = '.';
    } else if (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)) {
      value = relative.split(path.sep).join('/');
    }
  }
  const target = folder !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration(SECTION).update('trace', value, target);
  void vscode.window.showInformationMessage(`torchlint: checking findings against ${value}`);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('torchlint');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('torchlint.pickTrace', pickTrace),
    vscode.commands.registerCommand('torchlint.restart', restart),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // Another executable needs a new process, another trace new watchers; the rest the server takes live.
      if (event.affectsConfiguration('torchlint.path') || event.affectsConfiguration('torchlint.trace')) {
        void restart();
      }
    }),
  );
  await restart();
}

export function deactivate(): Promise<void> {
  return replace();
}
