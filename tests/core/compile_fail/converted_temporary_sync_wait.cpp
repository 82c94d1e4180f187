// EXPECT: tine::fork/call/sync_wait: an argument must be converted to bind to a reference parameter
#include <string>
#include <tine/core/core.hpp>

tine::task<int> length(const std::string& s) { co_return static_cast<int>(s.size()); }

struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

int misuse(any_scheduler& sched, const char* text) {
  return tine::sync_wait(sched, length, text);  // the std::string would die before the task runs
}
