// EXPECT: inside a task you can only co_await tine::fork
#include <coroutine>
#include <tine/core/core.hpp>

tine::task<int> parent() {
  co_await std::suspend_always{};
  co_return 0;
}
