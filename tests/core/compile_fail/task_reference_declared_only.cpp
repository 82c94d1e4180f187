// EXPECT: tine::task<T&>: a task cannot return a reference
// AT_MOST_LINES: 16
// Only declared here (defined in another file): the call that starts it gives the sentence, and
// does not compile into a request that does nothing.
#include <tine/core/core.hpp>

tine::task<int&> the_counter();

tine::task<void> uses() {
  co_await tine::call(the_counter);
  co_await tine::join();
}
