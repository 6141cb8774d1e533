// `torchlint server`: the language server. It reads frames on the calling thread, applies document
// edits there at once (so every later message sees them), and hands checks and requests to one worker
// thread. Checks are queued per document, not per edit: when edits come faster than checks, only the
// newest version is checked, and a result whose document changed meanwhile is not published. A trace
// is loaded on a thread of its own. See docs/server.md.
#pragma once

#include <cstddef>

#include "lsp/transport.h"

namespace tl::lsp {

struct ServerOptions {
  size_t jobs = 1;  // threads for summarising the project's modules
};

// Serves until `exit` (or the end of input); returns the exit status: 0 after a shutdown request, 1
// otherwise.
int Serve(FrameReader& reader, FrameWriter& writer, const ServerOptions& options = {});

}  // namespace tl::lsp
