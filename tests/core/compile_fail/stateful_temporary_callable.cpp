// EXPECT: the callable is a temporary with state
#include <tine/core/core.hpp>

tine::task<int> parent() {
  int base = 1;
  int n = 0;
  co_await tine::fork(
      &n, [base](int k) -> tine::task<int> { co_return base + k; }, 2);
  co_await tine::join();
  co_return n;
}
