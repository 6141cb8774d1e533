-- torchlint for Neovim's built-in LSP client (Neovim 0.7 or newer).
--
-- Starts `torchlint server` for Python buffers, one server per project root, and attaches each buffer
-- to the server of its root. Put this file on the runtime path as lua/torchlint.lua and call
--
--   require('torchlint').setup({ settings = { select = { 'TL1' }, targetTorch = '2.4' } })
--
-- Commands: :TorchlintFixAll (apply the server's source.fixAll.torchlint), :TorchlintTrace [path]
-- (check findings against a profiler trace; no path: stop), :TorchlintRestart.
local M = {}

M.defaults = {
  cmd = { 'torchlint', 'server' },
  filetypes = { 'python' },
  -- The first folder upward from the file that holds one of these is the root.
  root_markers = { 'pyproject.toml', 'setup.py', 'setup.cfg', 'torchlint.toml', '.git' },
  -- What the server reads: select, ignore (lists of codes or prefixes), targetTorch ("2.4"),
  -- unsafeFixes (boolean), trace (a Kineto trace file or folder; a relative path is taken from the root).
  settings = {},
  on_attach = nil,
  capabilities = nil,
}

M.config = vim.deepcopy(M.defaults)

local uv = vim.loop

-- Client methods: called with a dot up to 0.10, with a colon from 0.11 (where the dot is deprecated).
local colon = vim.fn.has('nvim-0.11') == 1
local function call(client, method, ...)
  if colon then
    return client[method](client, ...)
  end
  return client[method](...)
end

local function is_absolute(path)
  return path:sub(1, 1) == '/' or path:match('^%a:[/\\]') ~= nil
end

-- The folder of `path` that holds a root marker, nearest first; nil where none does.
function M.find_root(path, markers)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  while true do
    for _, marker in ipairs(markers) do
      if uv.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

-- The settings as the server reads them for one root: empty ones left out, the trace made absolute.
function M.server_settings(root)
  local s = M.config.settings or {}
  local out = {}
  if s.select and #s.select > 0 then out.select = s.select end
  if s.ignore and #s.ignore > 0 then out.ignore = s.ignore end
  if s.targetTorch and s.targetTorch ~= '' then out.targetTorch = s.targetTorch end
  out.unsafeFixes = s.unsafeFixes == true
  if s.trace and s.trace ~= '' then
    local trace = vim.fn.expand(s.trace)
    if not is_absolute(trace) and root then
      trace = root .. '/' .. trace
    end
    out.trace = vim.fn.simplify(trace)
  end
  return out
end

-- One client per root: root -> client id.
local clients = {}

local function live(id)
  local client = id and vim.lsp.get_client_by_id(id)
  if client and not call(client, 'is_stopped') then
    return client
  end
  return nil
end

local function client_config(root)
  local settings = M.server_settings(root)
  return {
    name = 'torchlint',
    cmd = M.config.cmd,
    root_dir = root,
    init_options = settings,
    -- Sent as workspace/didChangeConfiguration once the server is up, and read back on
    -- workspace/configuration: the server finds its section at settings.torchlint.
    settings = { torchlint = settings },
    capabilities = M.config.capabilities,
    on_attach = M.config.on_attach,
    on_exit = function(_, _, id)
      if clients[root] == id then
        clients[root] = nil
      end
    end,
  }
end

-- Attaches `bufnr` to the server of its root, starting that server when it is not running.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.bo[bufnr].buftype ~= '' then
    return
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root
  if name ~= '' then
    root = M.find_root(name, M.config.root_markers) or vim.fn.fnamemodify(name, ':p:h')
  else
    root = vim.fn.getcwd()
  end
  if vim.lsp.start then
    -- 0.8 and newer: vim.lsp.start reuses the client of the same name and root, and attaches.
    local id = vim.lsp.start(client_config(root), { bufnr = bufnr })
    clients[root] = id
    return id
  end
  local id = live(clients[root]) and clients[root]
  if not id then
    id = vim.lsp.start_client(client_config(root))
    if not id then
      vim.notify('torchlint: could not start ' .. table.concat(M.config.cmd, ' '), vim.log.levels.ERROR)
      return
    end
    clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

-- Tells every running server the current settings.
function M.notify_settings()
  for root, id in pairs(clients) do
    local client = live(id)
    if client then
      client.config.settings = { torchlint = M.server_settings(root) }
      call(client, 'notify', 'workspace/didChangeConfiguration', { settings = client.config.settings })
    end
  end
end

-- Applies the server's fix-all action (source.fixAll.torchlint) to `bufnr`.
function M.fix_all(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local attached = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  for _, client in pairs(attached) do
    if client.name == 'torchlint' then
      local params = {
        textDocument = { uri = vim.uri_from_bufnr(bufnr) },
        range = {
          start = { line = 0, character = 0 },
          ['end'] = { line = vim.api.nvim_buf_line_count(bufnr), character = 0 },
        },
        context = { diagnostics = {}, only = { 'source.fixAll.torchlint' } },
      }
      local reply = call(client, 'request_sync', 'textDocument/codeAction', params, 3000, bufnr)
      for _, action in ipairs((reply and reply.result) or {}) do
        if action.edit then
          vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or 'utf-16')
        end
        local command = type(action.command) == 'table' and action.command or nil
        if command then
          call(client, 'request_sync', 'workspace/executeCommand', command, 3000, bufnr)
        end
      end
    end
  end
end

function M.restart()
  local buffers = {}
  for _, id in pairs(clients) do
    local client = live(id)
    if client then
      for bufnr in pairs(client.attached_buffers or {}) do
        table.insert(buffers, bufnr)
      end
      call(client, 'stop')
    end
  end
  clients = {}
  -- Start anew once the old servers had time to stop.
  vim.defer_fn(function()
    for _, bufnr in ipairs(buffers) do
      if vim.api.nvim_buf_is_valid(bufnr) then
        M.attach(bufnr)
      end
    end
  end, 500)
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  local group = vim.api.nvim_create_augroup('torchlint', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  vim.api.nvim_create_user_command('TorchlintFixAll', function()
    M.fix_all()
  end, { desc = 'torchlint: apply every safe fix in this buffer' })
  vim.api.nvim_create_user_command('TorchlintTrace', function(args)
    M.config.settings.trace = args.args
    M.notify_settings()
  end, { nargs = '?', complete = 'file', desc = 'torchlint: check findings against a profiler trace' })
  vim.api.nvim_create_user_command('TorchlintRestart', M.restart, { desc = 'torchlint: restart the server' })
  -- Buffers already open when setup runs.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(M.config.filetypes, vim.bo[bufnr].filetype) then
      M.attach(bufnr)
    end
  end
end

return M
