// EXPECT: a temporary argument is bound to a reference parameter of the forked task
#include <tine/core/core.hpp>

struct counter {
  int base = 100;
  tine::task<int> plus(int k) { co_return base + k; }
};

tine::task<int> parent() {
  int n = 0;
  co_await tine::fork(&n, &counter::plus, counter{}, 5);  // the child's `this` is the temporary
  co_await tine::join();
  co_return n;
}
