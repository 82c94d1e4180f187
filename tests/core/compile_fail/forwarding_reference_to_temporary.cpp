// EXPECT: a task may not take a parameter by rvalue reference
#include <tine/core/core.hpp>

inline constexpr auto twice = [](auto&& x) -> tine::task<int> { co_return 2 * x; };

tine::task<int> parent() {
  int n = 0;
  co_await tine::fork(&n, twice, 21);  // binds the temporary 21 to an int&& parameter
  co_await tine::join();
  co_return n;
}
