-- Run by real_editor.sh in `nvim --headless`: editors/nvim/torchlint.lua against the real server.
-- Writes the diagnostic codes of the buffer before and after deleting the `.item()` line.
local repo, server, file, result = os.getenv('TL_REPO'), os.getenv('TL_SERVER'), os.getenv('TL_FILE'), os.getenv('TL_RESULT')
package.path = repo .. '/editors/nvim/?.lua;' .. package.path

local function codes(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == 'torchlint' then table.insert(out, tostring(d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code))) end
  end
  table.sort(out)
  return table.concat(out, ' ')
end

local lines = {}
local ok, err = pcall(function()
  require('torchlint').setup({ cmd = { server, 'server' } })
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.wait(15000, function() return codes(bufnr):find('TL101') ~= nil end, 50)
  table.insert(lines, codes(bufnr))
  -- Delete the line with `.item()` (line 13), as a user would.
  for i, l in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if l:find('loss.item()', 1, true) then
      vim.api.nvim_buf_set_lines(bufnr, i - 1, i, false, {})
      break
    end
  end
  vim.wait(15000, function() return codes(bufnr):find('TL101') == nil end, 50)
  table.insert(lines, codes(bufnr))
  for _, client in pairs(vim.lsp.get_active_clients()) do client.stop() end
  vim.wait(2000, function() return #vim.lsp.get_active_clients() == 0 end, 50)
end)
if not ok then table.insert(lines, 'error: ' .. tostring(err)) end
local f = io.open(result, 'w')
f:write(table.concat(lines, '\n') .. '\n')
f:close()
vim.cmd('qall!')
