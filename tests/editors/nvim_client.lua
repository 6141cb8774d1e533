-- Run by nvim_client.sh in `nvim --headless`: loads editors/nvim/torchlint.lua, opens two Python files
-- of a project against the fake server, applies :TorchlintFixAll, switches the trace with
-- :TorchlintTrace, and writes what it saw to TL_RESULT for client_checks.js.
-- Environment: TL_REPO, TL_SERVER (the fake server's command), TL_PROJECT, TL_RESULT.
local repo, server, project, result = os.getenv('TL_REPO'), os.getenv('TL_SERVER'), os.getenv('TL_PROJECT'), os.getenv('TL_RESULT')
package.path = repo .. '/editors/nvim/?.lua;' .. package.path

local seen = { checks = {}, opened = {} }
local function check(ok, what)
  table.insert(seen.checks, { ok = ok == true, what = what })
end
local function torchlint_client(bufnr)
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == 'torchlint' then return c end
  end
end
local function real(path)
  return path and vim.loop.fs_realpath(path)
end

local ok, err = pcall(function()
  require('torchlint').setup({ cmd = { server, 'server' }, settings = { select = { 'TL1' }, ignore = {}, trace = 'prof' } })
  vim.cmd('edit ' .. vim.fn.fnameescape(project .. '/pkg/train.py'))
  local bufnr = vim.api.nvim_get_current_buf()
  local attached = vim.wait(10000, function()
    local c = torchlint_client(bufnr)
    return c ~= nil and c.initialized == true
  end, 20)
  check(attached, 'the Python buffer is attached to an initialized torchlint client')
  if not attached then error('no torchlint client') end
  table.insert(seen.opened, 'train.py')
  check(real(torchlint_client(bufnr).config.root_dir) == real(project), "the root is the folder with pyproject.toml, above the file's own")

  vim.cmd('edit ' .. vim.fn.fnameescape(project .. '/pkg/model.py'))
  local shared = vim.wait(5000, function()
    local c = torchlint_client(0)
    return c ~= nil and c.id == torchlint_client(bufnr).id
  end, 20)
  check(shared and #vim.lsp.get_active_clients() == 1, 'a second file of the project shares the one server')
  table.insert(seen.opened, 'model.py')
  vim.cmd('buffer ' .. bufnr)

  vim.cmd('TorchlintFixAll')
  seen.first_line = vim.api.nvim_buf_get_lines(bufnr, 0, 1, false)[1]

  vim.cmd('TorchlintTrace runs/step.json.gz')
  vim.wait(300)
end)
if not ok then seen.error = tostring(err) end
local f = io.open(result, 'w')
f:write(vim.fn.json_encode(seen))
f:close()
vim.cmd('qall!')
