// EXPECT: a span of const elements can only be checked out with access::read
// AT_MOST_LINES: 20
// A write checkout of a span of const elements: refused at compile time.
#include <tine/distributed/distributed.hpp>

tine::task<void> overwrite(tine::mpi::global_span<const double> s) {
  auto out = co_await tine::mpi::checkout(s, tine::mpi::access::write);
  out[0] = 1.0;
}
