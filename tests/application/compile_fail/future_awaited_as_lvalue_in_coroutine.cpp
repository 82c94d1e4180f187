// EXPECT: tine::future: write co_await std::move(f)
// AT_MOST_LINES: 40
#include <coroutine>
#include <exception>

#include <tine/core/core.hpp>

struct plain {
  struct promise_type {
    plain get_return_object() { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() { std::terminate(); }
  };
};

plain waits(tine::future<int>& f) {
  int x = co_await f;  // would empty the caller's future
  (void)x;
}
