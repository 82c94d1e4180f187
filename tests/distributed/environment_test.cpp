// tine::mpi::environment when the application initialised MPI itself (run by mpiexec): with
// MPI_THREAD_MULTIPLE it is adopted and left for the application to finalise; with a lower
// thread level (argument "single") the program is stopped with a message saying what to do.
// Also: a uni-address region too large for the address space is refused on every rank.

#include <tine/distributed/environment.hpp>
#include <tine/distributed/foundation/progress_thread.hpp>
#include <tine/distributed/foundation/uni_address_region.hpp>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "tests/distributed/mpi_check.hpp"

namespace {

using tine_test::my_rank;

}  // namespace

int main(int argc, char** argv) {
  const bool single = argc > 1 && std::string(argv[1]) == "single";
  int provided = 0;
  // The application's own initialisation, before tine's environment.
  MPI_Init_thread(&argc, &argv, single ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE, &provided);
  tine_test::start_checks();
  {
    tine::mpi::environment env(argc, argv);  // stops the program here when "single"
    CHECK(!env.owns_mpi());
    int initialised = 0;
    MPI_Initialized(&initialised);
    CHECK(initialised == 1);

    // 2^46 bytes per rank cannot be reserved (a 47-bit address space holds 2^47 in all).
    bool refused = false;
    try {
      tine::mpi::detail::uni_address_region too_big(MPI_COMM_WORLD, std::size_t{1} << 46);
    } catch (const std::runtime_error& e) {
      refused = std::string(e.what()).find("no address range") != std::string::npos;
    }
    CHECK(refused);

    // MPICH's own progress thread makes tine's unnecessary: it does not start.
    if (const char* async = std::getenv("MPICH_ASYNC_PROGRESS"); async && async[0] == '1') {
      tine::mpi::detail::progress_thread progress(MPI_COMM_WORLD);
      CHECK(!progress.running());
    } else {
      tine::mpi::detail::progress_thread progress(MPI_COMM_WORLD);
      CHECK(progress.running());
    }
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  CHECK(finalized == 0);  // the environment left MPI to the application
  const int status = tine_test::finish("environment_test");
  MPI_Finalize();
  return status;
}
