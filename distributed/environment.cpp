#include <tine/distributed/environment.hpp>

#include <sys/personality.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <typeinfo>
#include <vector>

namespace tine::mpi {
namespace detail {
namespace {

bool randomisation_disabled_system_wide() {
  std::FILE* f = std::fopen("/proc/sys/kernel/randomize_va_space", "r");
  if (f == nullptr) {
    return false;
  }
  int level = -1;
  const bool read = std::fscanf(f, "%d", &level) == 1;
  std::fclose(f);
  return read && level == 0;
}

// Ends the program on every rank of `comm` (all of them call this: the decision is collective)
// with `message` from rank 0. A clean finalisation rather than MPI_Abort, so that mpiexec passes
// the message on before the job ends.
[[noreturn]] void stop_everywhere(MPI_Comm comm, const std::string& message) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    std::fprintf(stderr, "tine: fatal: tine::mpi::environment: %s\n", message.c_str());
    std::fflush(stderr);
  }
  MPI_Barrier(comm);
  MPI_Finalize();
  // From the environment's constructor, first in main: no tine thread runs yet, and MPI's are gone.
  std::exit(1);  // NOLINT(concurrency-mt-unsafe)
}

/// What this program was built against, for messages.
std::string built_against() {
#if defined(MPICH_VERSION)
  return std::string("MPICH ") + MPICH_VERSION;
#elif defined(OPEN_MPI) && defined(OMPI_MAJOR_VERSION)
  return "Open MPI " + std::to_string(OMPI_MAJOR_VERSION) + "." +
         std::to_string(OMPI_MINOR_VERSION) + "." + std::to_string(OMPI_RELEASE_VERSION);
#else
  return "an MPI other than MPICH and Open MPI";
#endif
}

/// The launcher whose mpiexec suits this program, for messages.
const char* own_launcher() {
#if defined(MPICH_VERSION)
  return "MPICH's mpiexec (Debian: mpiexec.mpich)";
#elif defined(OPEN_MPI)
  return "Open MPI's mpiexec (Debian: mpiexec.openmpi)";
#else
  return "the mpiexec of the MPI it was built against";
#endif
}

}  // namespace

std::optional<launcher_job> launcher_job_size() {
  // The variables the common launchers give each process they start, and the size they name.
  // PMIx launchers (Open MPI 5's prterun, Slurm with PMIx) name the job's size only through
  // PMIx itself: not read here.
  static const struct {
    const char* variable;
    const char* launcher;
  } known[] = {
      {"OMPI_COMM_WORLD_SIZE", "Open MPI's mpiexec"},
      {"PMI_SIZE", "a PMI launcher such as MPICH's mpiexec (Hydra), Intel MPI's or Slurm's"},
      {"MPI_LOCALNRANKS", "MPICH's mpiexec (Hydra)"},
  };
  for (const auto& k : known) {
    const char* text = std::getenv(k.variable);
    if (text == nullptr) {
      continue;
    }
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && n > 1) {
      return launcher_job{static_cast<int>(n > 1'000'000'000 ? 1'000'000'000 : n), k.variable,
                          k.launcher};
    }
  }
  return std::nullopt;
}

void warn_if_launched_by_another_mpi(const std::optional<launcher_job>& launched, int mpi_size) {
  if (!launched.has_value() || mpi_size != 1) {
    return;
  }
  // A warning, not a stop: the variables may be inherited (a program started by a process of an
  // MPI job runs as a job of its own, rightly), and each process of a wrong launch still runs
  // the whole computation correctly, alone.
  std::fprintf(stderr,
               "tine: warning: tine::mpi::environment: the launcher started this program as one "
               "of %d processes (%s=%d, set by %s), but MPI sees a job of one process: the "
               "program was most likely built against one MPI and started with another MPI's "
               "mpiexec. It was built against %s: start it with %s, or build it against the MPI "
               "whose mpiexec you use. Each process now runs alone, as a job of one rank.\n",
               launched->processes, launched->variable, launched->processes, launched->launcher,
               built_against().c_str(), own_launcher());
  std::fflush(stderr);
}

void choose_one_sided_components() {
#if defined(OPEN_MPI)
  // Open MPI (4.1.4, Debian 12's) chooses a one-sided component per window, and left to itself
  // with MPI_THREAD_MULTIPLE on one machine it gives tine's windows to pt2pt or rdma: the
  // region's MPI_Win_create then failed ("MPI_ERR_WIN: invalid window") on one rank, and the
  // deque window that was then each worker's lane crashed on two. Without them, sm takes the
  // windows whose ranks share memory (atomics complete without the target) and ucx the others.
  // 0: a user's own choice stands; an excluded name that a version lacks is ignored.
  // Before MPI starts, from the environment's constructor (first in main): no other thread reads.
  ::setenv("OMPI_MCA_osc", "^pt2pt,rdma", 0);  // NOLINT(concurrency-mt-unsafe)
#endif
}

void restart_without_randomisation(char** argv) {
  const int current = ::personality(0xffffffff);
  if (current == -1 || (current & ADDR_NO_RANDOMIZE) != 0 || randomisation_disabled_system_wide()) {
    return;
  }
  if (const char* keep = std::getenv("TINE_MPI_KEEP_ASLR"); keep != nullptr && keep[0] == '1') {
    return;
  }
  if (::personality(static_cast<unsigned long>(current) | ADDR_NO_RANDOMIZE) == -1) {
    return;  // not permitted here: check_same_layout says what to do
  }
  // As in choose_one_sided_components: before MPI and any thread of tine's.
  ::setenv("TINE_MPI_RESTARTED", "1", 1);  // NOLINT(concurrency-mt-unsafe)
  ::execv("/proc/self/exe", argv);
  // Still here: exec failed. Put the personality back and let check_same_layout decide.
  ::personality(static_cast<unsigned long>(current));
  ::unsetenv("TINE_MPI_RESTARTED");  // NOLINT(concurrency-mt-unsafe): as above
}

void check_same_layout(MPI_Comm comm) {
  // One address in this program's code, one in the C library and one in the C++ library: frames
  // hold resume functions (the program), and locals may hold pointers into either library.
  const std::uint64_t mine[3] = {
      reinterpret_cast<std::uintptr_t>(&check_same_layout),
      reinterpret_cast<std::uintptr_t>(&std::memcpy),
      reinterpret_cast<std::uintptr_t>(&typeid(std::exception)),
  };
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<std::uint64_t> all(3 * static_cast<std::size_t>(size));
  MPI_Allgather(mine, 3, MPI_UINT64_T, all.data(), 3, MPI_UINT64_T, comm);
  static const char* const what[3] = {"the program's code", "the C library", "the C++ library"};
  for (int r = 1; r < size; ++r) {
    for (int i = 0; i < 3; ++i) {
      if (all[3 * static_cast<std::size_t>(r) + static_cast<std::size_t>(i)] !=
          all[static_cast<std::size_t>(i)]) {
        stop_everywhere(
            comm, std::string(what[i]) + " is not at the same address on rank 0 and rank " +
                      std::to_string(r) +
                      ", so a continuation cannot move between them. tine turns address-space "
                      "randomisation off by itself unless it may not (MPI was initialised before "
                      "the environment, personality(2) refused, or TINE_MPI_KEEP_ASLR=1): run "
                      "the program under `setarch -R`, or set kernel.randomize_va_space=0, and "
                      "make every rank run the same executable.");
      }
    }
  }
}

}  // namespace detail

bool environment::restarted_without_randomisation() noexcept {
  const char* v = std::getenv("TINE_MPI_RESTARTED");
  return v != nullptr && v[0] == '1';
}

environment::environment(int& argc, char**& argv) {
  // Before MPI starts: Open MPI, started alone, sets variables of its own.
  const std::optional<detail::launcher_job> launched = detail::launcher_job_size();
  int initialised = 0;
  MPI_Initialized(&initialised);
  int provided = 0;
  if (initialised != 0) {
    MPI_Query_thread(&provided);
  } else {
    detail::choose_one_sided_components();
    detail::restart_without_randomisation(argv);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    m_owns = true;
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    detail::stop_everywhere(
        MPI_COMM_WORLD,
        "MPI provides thread level " + std::to_string(provided) +
            ", and tine needs MPI_THREAD_MULTIPLE (" + std::to_string(MPI_THREAD_MULTIPLE) + ")" +
            (m_owns ? std::string()
                    : ": initialise MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...)"));
  }
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  detail::warn_if_launched_by_another_mpi(launched, size);
  detail::check_same_layout(MPI_COMM_WORLD);
}

environment::~environment() {
  if (m_owns) {
    MPI_Finalize();
  }
}

}  // namespace tine::mpi
