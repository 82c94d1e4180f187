// EXPECT: tine::resume_on(mpi_pool): a task cannot move onto a distributed pool
// AT_MOST_LINES: 28
// A task cannot move onto an mpi_pool with resume_on. (Clang also reports the co_await of what
// the refused call returns, one note per await_transform of a task: more lines than GCC.)
#include <tine/distributed/distributed.hpp>

tine::task<void> move_to(tine::mpi_pool<>* pool) { co_await tine::resume_on(*pool); }
