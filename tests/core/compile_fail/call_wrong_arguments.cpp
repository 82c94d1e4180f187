// EXPECT: tine::call: fn cannot be called with these arguments
// AT_MOST_LINES: 15
// Too few arguments for the task: one static_assert, not a list of rejected candidates.
#include <tine/core/core.hpp>

tine::task<long> fib(int n) { co_return n; }

tine::task<long> parent() {
  long a = 0;
  co_await tine::call(&a, fib);
  co_return a;
}
