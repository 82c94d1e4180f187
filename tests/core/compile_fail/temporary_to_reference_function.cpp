// EXPECT: a temporary argument is bound to a reference parameter of the forked task
#include <tine/core/core.hpp>

struct Big {
  int value;
};

tine::task<int> value_of(const Big& b) { co_return b.value; }

tine::task<int> parent() {
  int n = 0;
  co_await tine::fork(&n, value_of, Big{42});  // Big{42} dies when a thief resumes the parent
  co_await tine::join();
  co_return n;
}
