// Guards the build flags, not the library: a coroutine awaiting a million
// children in a row must not grow the thread stack. Each co_await transfers to
// the child and the child's final_suspend transfers back; unless GCC emits both
// as tail calls, the stack grows by a frame or two per iteration and overflows
// (8 MiB default stack). See .bazelrc and docs/build.md.
#include <coroutine>
#include <cstdio>
#include <cstdlib>

namespace {

struct task {
  struct promise_type {
    std::coroutine_handle<> continuation;

    task get_return_object() noexcept {
      return task{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    struct final_awaiter {
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> self) noexcept {
        return self.promise().continuation;
      }
      void await_resume() noexcept {}
    };
    final_awaiter final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::abort(); }
  };

  explicit task(std::coroutine_handle<promise_type> h) noexcept : handle(h) {}
  task(task&&) = delete;
  ~task() { handle.destroy(); }

  bool await_ready() noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
    handle.promise().continuation = awaiting;
    return handle;
  }
  void await_resume() noexcept {}

  std::coroutine_handle<promise_type> handle;
};

long completed = 0;

task leaf() { co_return; }

task chain(long n) {
  for (long i = 0; i < n; ++i) {
    co_await leaf();
    ++completed;
  }
}

}  // namespace

int main() {
  constexpr long n = 1'000'000;
  task root = chain(n);
  root.handle.promise().continuation = std::noop_coroutine();
  root.handle.resume();
  std::printf("%ld of %ld symmetric transfers completed\n", completed, n);
  return completed == n ? 0 : 1;
}
