// EXPECT: tine::resume_on(mpi_pool): a task cannot move onto a distributed pool
// AT_MOST_LINES: 24
// A task cannot move onto an mpi_pool with resume_on. (Clang also reports the co_await of what
// the refused call returns: more lines than GCC.)
#include <tine/distributed/distributed.hpp>

tine::task<void> move_to(tine::mpi_pool<>* pool) { co_await tine::resume_on(*pool); }
