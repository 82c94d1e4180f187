// EXPECT: COMPILES
// The control: a victim policy as the pool's template parameter; sync_wait on it; and a pool
// declared without template arguments is an mpi_pool<> (uniform victims).
#include <tine/distributed/distributed.hpp>
#include <tine/policies/numa_victims.hpp>

#include <type_traits>

tine::task<long> length() { co_return 4; }

long run(tine::mpi_pool<tine::numa_victims>& pool) { return tine::sync_wait(pool, length); }

void declare() {
  tine::mpi_pool pool;
  static_assert(std::is_same_v<decltype(pool), tine::mpi_pool<tine::uniform_victims>>);
  static_assert(!tine::scheduler<tine::mpi_pool<>>);
}
