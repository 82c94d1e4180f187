// EXPECT: tine::fork: fn(args...) must return tine::task<T>
// AT_MOST_LINES: 15
// A plain function handed to fork: one static_assert, and the co_await adds no error of its own.
#include <tine/core/core.hpp>

long plain(int n) { return n; }

tine::task<long> parent() {
  long a = 0;
  co_await tine::fork(&a, plain, 3);
  co_await tine::join();
  co_return a;
}
