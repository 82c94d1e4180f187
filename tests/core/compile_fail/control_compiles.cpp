// EXPECT: COMPILES
// The same shapes written correctly: this file must compile, so the failures above are real.
#include <string>
#include <tine/core/core.hpp>

tine::task<int> consume(std::string s) { co_return static_cast<int>(s.size()); }
inline constexpr auto twice = [](auto x) -> tine::task<int> { co_return 2 * x; };
tine::task<long> answer() { co_return 42; }

tine::task<int> parent() {
  int a = 0;
  int b = 0;
  long c = 0;
  int base = 1;
  auto add = [base](int k) -> tine::task<int> { co_return base + k; };
  int d = 0;
  co_await tine::fork(&a, consume, std::string("by value is safe"));
  co_await tine::fork(&b, twice, 21);
  co_await tine::fork(&c, answer);
  co_await tine::fork(&d, add, 2);
  co_await tine::join();
  co_return a + b + static_cast<int>(c) + d;
}
