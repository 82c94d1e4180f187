// EXPECT: a temporary argument is bound to a reference parameter of the forked task
#include <tine/core/core.hpp>

struct Big {
  int value;
};

tine::task<int> parent() {
  auto value_of = [](int scale, const Big& b) -> tine::task<int> { co_return (scale * b.value); };
  int n = 0;
  co_await tine::fork(&n, value_of, 2, Big{21});  // Big{21} dangles; 2 is copied
  co_await tine::join();
  co_return n;
}
