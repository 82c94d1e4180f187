// EXPECT: tine::reducer cannot be copied or moved
// AT_MOST_LINES: 40
#include <tine/core/core.hpp>

tine::task<void> add(tine::reducer<tine::sum<long>> total, long x) {
  total.view() += x;
  co_return;
}

tine::task<void> parent() {
  tine::reducer<tine::sum<long>> total;
  co_await tine::fork(add, total, 1L);
  co_await tine::join();
}
