// EXPECT: tine::fork does nothing unless co_awaited: the child never runs and *result is
// EXPECT: tine::call does nothing unless co_awaited: the child never runs and *result is
// EXPECT: tine::join does nothing unless co_awaited
// EXPECT: tine::stack_alloc allocates nothing unless co_awaited
// EXPECT: tine::resume_on does nothing unless co_awaited
// FLAGS: -Werror=unused-result
// Each request without its co_await: the compiler names the request and what is lost (the forms
// of fork and call without a result: forgotten_co_await_without_result.cpp).
#include <tine/core/core.hpp>

struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

tine::task<long> fib(int n) { co_return n; }

tine::task<long> parent(any_scheduler& elsewhere) {
  long a = 0;
  long b = 0;
  tine::fork(&a, fib, 1);
  tine::call(&b, fib, 3);
  tine::join();
  tine::stack_alloc<long>(4);
  tine::resume_on(elsewhere);
  co_return a + b;
}
