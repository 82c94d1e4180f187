// EXPECT: tine::fork does nothing unless co_awaited: the child never runs
// EXPECT: tine::call does nothing unless co_awaited: the child never runs
// FLAGS: -Werror=unused-result
// fork and call without a result variable and without their co_await.
#include <tine/core/core.hpp>

tine::task<void> work(int) { co_return; }

tine::task<void> parent() {
  tine::fork(work, 1);
  tine::call(work, 2);
  co_return;
}
