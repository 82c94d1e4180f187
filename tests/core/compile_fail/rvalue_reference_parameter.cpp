// EXPECT: a task may not take a parameter by rvalue reference
#include <string>
#include <tine/core/core.hpp>

tine::task<int> consume(std::string&& s) { co_return static_cast<int>(s.size()); }

tine::task<int> parent() {
  int n = 0;
  co_await tine::fork(&n, consume, std::string("dangles once the parent is stolen"));
  co_await tine::join();
  co_return n;
}
