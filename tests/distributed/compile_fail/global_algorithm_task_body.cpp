// EXPECT: tine::for_each on a global span: f must be callable as f(element&) and must not return a task
// AT_MOST_LINES: 42
// An element function that is a task, over a global span: refused (a leaf keeps its elements
// checked out while it calls the function).
#include <tine/distributed/distributed.hpp>

void run(tine::mpi_pool<>& pool, tine::mpi::global_span<double> s) {
  tine::for_each(pool, s, [](double& x) -> tine::task<void> {
    x += 1;
    co_return;
  });
}
