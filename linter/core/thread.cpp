#include "linter/core/thread.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

namespace tl {

void NameThisThread(const std::string& name) {
#ifdef __linux__
  (void)pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
#else
  (void)name;
#endif
}

bool RunThisThreadAtIdlePolicy() {
#ifdef __linux__
  const sched_param param{};
  return pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) == 0;
#else
  return false;
#endif
}

bool RunThisThreadInBackground() {
#ifdef __linux__
  if (RunThisThreadAtIdlePolicy()) return true;
  // On Linux, niceness is a thread's own: PRIO_PROCESS with the thread's id sets only its own.
  return setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 19) == 0;
#else
  return false;
#endif
}

}  // namespace tl
