// EXPECT: a temporary argument is bound to a reference parameter of the forked task
#include <tine/core/core.hpp>

struct Big {
  int value;
};

inline constexpr auto value_of = [](const auto& b) -> tine::task<int> { co_return b.value; };

tine::task<int> parent() {
  int n = 0;
  co_await tine::fork(&n, value_of, Big{42});  // const auto& deduces const Big&
  co_await tine::join();
  co_return n;
}
