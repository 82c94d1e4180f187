// EXPECT: takes a scratch span as its second argument
// AT_MOST_LINES: 24
// The task form of sort on a global span without the scratch span that a task cannot make.
#include <tine/distributed/distributed.hpp>

tine::task<void> sort_it(tine::mpi::global_span<double> s) {
  co_await tine::call(tine::async::sort, s);
  co_await tine::join();
}
