// EXPECT: the root task's result type must be trivially copyable
// AT_MOST_LINES: 16
// Every rank receives a copy of the root's result bytes: a std::string cannot be sent so.
#include <tine/distributed/distributed.hpp>

#include <string>

tine::task<std::string> name() { co_return "tine"; }

std::string run(tine::mpi_pool<>& pool) { return tine::sync_wait(pool, name); }
