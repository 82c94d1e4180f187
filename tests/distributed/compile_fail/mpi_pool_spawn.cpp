// EXPECT: tine::spawn on an mpi_pool: a distributed pool starts root tasks only through
// AT_MOST_LINES: 14
// An mpi_pool is not a tine::scheduler: roots start only through the collective sync_wait.
#include <tine/distributed/distributed.hpp>

tine::task<long> length() { co_return 4; }

void run(tine::mpi_pool<>& pool) { tine::spawn(pool, length); }
