// EXPECT: this algorithm, or this form of its arguments, is not among them
// AT_MOST_LINES: 34
// An algorithm that does not take global spans yet: refused with the list's whereabouts.
#include <tine/distributed/distributed.hpp>

void run(tine::mpi_pool<>& pool, tine::mpi::global_span<double> s) {
  (void)tine::minmax_element(pool, s);
}
