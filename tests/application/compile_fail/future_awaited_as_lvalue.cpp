// EXPECT: tine::future: write co_await std::move(f)
// AT_MOST_LINES: 40
#include <tine/core/core.hpp>

tine::task<int> seven() { co_return 7; }

tine::task<int> parent() {
  tine::future<int> f = tine::spawn(tine::current_scheduler(), seven);
  co_return co_await f;  // would empty the named future silently
}
