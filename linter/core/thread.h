// What the language server tells the OS about its threads: a name for each (what `top -H`, `perf` and
// /proc/PID/task/TID/comm show), and which of them do background work. A background thread runs at
// SCHED_IDLE: any other thread of the machine that wakes on its CPU, the server's own checking thread
// and the editor among them, preempts it at once, instead of waiting out its time slice.
#pragma once

#include <string>

namespace tl {

// Names the calling thread; a name is cut to the 15 bytes Linux keeps.
void NameThisThread(const std::string& name);

// Puts the calling thread under SCHED_IDLE; false (and the thread left as it was) where that is refused.
bool RunThisThreadAtIdlePolicy();

// Runs the calling thread as background work: SCHED_IDLE, or niceness 19 where SCHED_IDLE is refused.
// False (and the thread left as it was) when neither is allowed.
bool RunThisThreadInBackground();

}  // namespace tl
