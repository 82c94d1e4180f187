// EXPECT: an argument must be converted to bind to a reference parameter of the task
#include <string>
#include <tine/core/core.hpp>

tine::task<int> length(const std::string& s) { co_return static_cast<int>(s.size()); }

tine::task<int> parent() {
  const char* text = "a std::string is made from this, and destroyed before length starts";
  int n = 0;
  co_await tine::call(&n, length, text);  // no stealing in call, yet the std::string dangles
  co_await tine::join();
  co_return n;
}
