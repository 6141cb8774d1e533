// The server's thread settings (linter/core/thread.h), read back from the OS: a background thread runs at
// SCHED_IDLE and the thread that started it keeps its own policy; a name is cut to what Linux keeps. (The
// helpers answer -1 or "(unread)" rather than assert: they run on the threads under test.)
#include <pthread.h>
#include <sched.h>
#include <doctest/doctest.h>

#include <array>
#include <string>
#include <thread>

#include "linter/core/thread.h"

namespace tl {
namespace {

int PolicyOfThisThread() {
  int policy = -1;
  sched_param param{};
  return pthread_getschedparam(pthread_self(), &policy, &param) == 0 ? policy : -1;
}

std::string NameOfThisThread() {
  std::array<char, 64> name{};
  return pthread_getname_np(pthread_self(), name.data(), name.size()) == 0 ? std::string(name.data()) : "(unread)";
}

TEST_CASE("a background thread runs at SCHED_IDLE; the thread that started it does not") {
  const int before = PolicyOfThisThread();
  int policy = -1;
  bool lowered = false;
  std::thread([&] {
    lowered = RunThisThreadInBackground();
    policy = PolicyOfThisThread();
  }).join();
  CHECK(lowered);
  CHECK(policy == SCHED_IDLE);
  CHECK(PolicyOfThisThread() == before);
  CHECK(before != SCHED_IDLE);
}

TEST_CASE("a thread's name is set, and cut to the 15 bytes Linux keeps") {
  std::string short_name;
  std::string long_name;
  std::thread([&] {
    NameThisThread("tl-check");
    short_name = NameOfThisThread();
    NameThisThread("tl-a-name-longer-than-fifteen-bytes");
    long_name = NameOfThisThread();
  }).join();
  CHECK(short_name == "tl-check");
  CHECK(long_name == "tl-a-name-longe");
}

}  // namespace
}  // namespace tl
