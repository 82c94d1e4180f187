// EXPECT: elements must be trivially copyable (and not const)
// AT_MOST_LINES: 20
// A global vector of std::string: its elements could not be copied between ranks as bytes.
#include <tine/distributed/distributed.hpp>

#include <string>

void make(tine::mpi_pool<>& pool) { tine::mpi::global_vector<std::string> names(pool, 10); }
