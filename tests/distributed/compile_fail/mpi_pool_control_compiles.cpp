// EXPECT: COMPILES
// The control: the same program with a trivially copyable result compiles.
#include <tine/distributed/distributed.hpp>

tine::task<long> length() { co_return 4; }

long run(tine::mpi_pool<>& pool) { return tine::sync_wait(pool, length); }
