#include <tine/distributed/foundation/collective_call.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace tine::mpi::detail {
namespace {

constexpr int fields = 4;

std::string describe(const std::uint64_t* call) {
  if (call[0] == collective_call::destroy) {
    return "the pool's destructor (after " + std::to_string(call[1]) + " collective calls)";
  }
  if (call[0] == collective_call::allocate || call[0] == collective_call::deallocate) {
    const char* which = call[0] == collective_call::allocate ? "the constructor" : "the destructor";
    return std::string(which) + " of a global_vector of " + std::to_string(call[2]) +
           " elements of " + std::to_string(call[3]) + " bytes (collective call number " +
           std::to_string(call[1] + 1) + ")";
  }
  if (call[0] == collective_call::root) {
    return "sync_wait number " + std::to_string(call[1] + 1) + " (a root whose result is " +
           std::to_string(call[3]) + " bytes)";
  }
  return "an unknown call";
}

double wait_limit_seconds() {
  const char* limit = std::getenv("TINE_MPI_WAIT_LIMIT");
  return limit != nullptr ? std::atof(limit) : 0.0;
}

}  // namespace

void stop_job(MPI_Comm comm, const char* message) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    std::fprintf(stderr, "tine: fatal: %s\n", message);
    std::fflush(stderr);
  }
  // Every rank is here, so the barrier returns, and the message is out before any rank exits
  // (MPI_Abort could end the job before mpiexec passed it on).
  MPI_Barrier(comm);
  std::_Exit(1);
}

void agree_on_call(MPI_Comm comm, const collective_call& mine) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::uint64_t me[fields] = {mine.kind, mine.sequence, mine.signature, mine.result_bytes};
  std::vector<std::uint64_t> all(static_cast<std::size_t>(fields) * static_cast<std::size_t>(size));
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallgather(me, fields, MPI_UINT64_T, all.data(), fields, MPI_UINT64_T, comm, &request);
  // Sleep between polls, from a microsecond up to a millisecond: a partner that is a moment late
  // costs little latency, one that is far behind costs no CPU.
  const auto start = std::chrono::steady_clock::now();
  const double limit = wait_limit_seconds();
  double warn_at = 60.0;
  auto pause = std::chrono::microseconds(1);
  for (;;) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done != 0) {
      break;
    }
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(1)) {
      pause *= 2;
    }
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (limit > 0 && waited > limit) {
      // Alone here: the others are not in this call, so this rank ends the job by itself.
      std::fprintf(stderr,
                   "tine: fatal: tine::mpi_pool: rank %d waited %.0f s in %s for other ranks "
                   "that did not make the same call (TINE_MPI_WAIT_LIMIT); every rank must call "
                   "sync_wait the same number of times, then destroy the pool\n",
                   rank, waited, describe(me).c_str());
      std::fflush(stderr);
      MPI_Abort(comm, 1);
    }
    if (waited > warn_at) {
      std::fprintf(stderr,
                   "tine: tine::mpi_pool: rank %d has waited %.0f s in %s for other ranks to make "
                   "the same call; a rank that never calls leaves it waiting\n",
                   rank, waited, describe(me).c_str());
      warn_at *= 2;
    }
  }
  bool same = true;
  bool same_function = true;
  bool same_kind = true;  // and the same place among the calls
  for (int r = 1; r < size; ++r) {
    const std::uint64_t* theirs =
        &all[static_cast<std::size_t>(r) * static_cast<std::size_t>(fields)];
    for (int i = 0; i < fields; ++i) {
      same = same && theirs[i] == all[static_cast<std::size_t>(i)];
    }
    same_function = same_function && theirs[2] == all[2];
    same_kind = same_kind && theirs[0] == all[0] && theirs[1] == all[1];
  }
  if (same) {
    return;
  }
  std::string message =
      "tine::mpi_pool: the ranks made different collective calls (every rank must call sync_wait "
      "the same number of times, with the same function (tine's blocking algorithms on global "
      "spans call it), make and destroy the same global vectors in the same order, then destroy "
      "the pool):";
  for (int r = 0; r < size; ++r) {
    message += "\n  rank " + std::to_string(r) + ": " +
               describe(&all[static_cast<std::size_t>(r) * static_cast<std::size_t>(fields)]);
  }
  if (same_kind && all[0] == collective_call::root && !same_function) {
    message += "\n  (the ranks' roots are different functions, or functions of different types)";
  }
  if (same_kind && (all[0] == collective_call::allocate || all[0] == collective_call::deallocate)) {
    // Left alone, each rank would lay out blocks of its own size: reads and writes of the
    // elements would go to the wrong places.
    message +=
        "\n  (the ranks' global vectors have different sizes or element sizes; a global "
        "vector has the same size and element type on every rank)";
  }
  stop_job(comm, message.c_str());
}

}  // namespace tine::mpi::detail
