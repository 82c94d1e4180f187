// EXPECT: an argument must be converted to bind to a reference parameter of the task
#include <tine/core/core.hpp>

tine::task<long> twice(const long& x) { co_return 2 * x; }

tine::task<long> parent() {
  int k = 21;
  long n = 0;
  co_await tine::call(&n, twice, k);  // the int is converted to a temporary long
  co_await tine::join();
  co_return n;
}
