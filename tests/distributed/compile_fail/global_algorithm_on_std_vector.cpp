// EXPECT: the input must be a tine::mpi::global_span or global_vector
// AT_MOST_LINES: 20
// A standard range on an mpi_pool: one rank's memory, refused at compile time.
#include <tine/distributed/distributed.hpp>

#include <vector>

void run(tine::mpi_pool<>& pool, std::vector<double>& v) {
  tine::for_each(pool, v, [](double& x) { x += 1; });
}
