// EXPECT: r must have exactly the type the task returns
#include <tine/core/core.hpp>

tine::task<long> answer() { co_return 42; }

tine::task<int> parent() {
  int n = 0;
  co_await tine::fork(&n, answer);
  co_await tine::join();
  co_return n;
}
