// EXPECT: tine::task<const T>: a task's result type cannot be const or volatile
// AT_MOST_LINES: 16
#include <tine/core/core.hpp>

tine::task<const int> answer() { co_return 42; }

tine::task<void> uses() {
  int r = 0;
  co_await tine::call(&r, answer);
  co_await tine::join();
}
