#ifndef TINE_DISTRIBUTED_ENVIRONMENT_HPP
#define TINE_DISTRIBUTED_ENVIRONMENT_HPP

/// \file environment.hpp
/// `tine::mpi::environment`: MPI's lifetime for a tine program, and the one property of the
/// process layout that distributed continuation stealing needs from the system.
///
/// A continuation that moves to another rank is resumed from a copy of its frame's bytes, and a
/// coroutine frame holds code addresses (its resume function, the vtables of its locals): the
/// copy is valid only if the code sits at the same address on every rank. The environment makes
/// sure of that before MPI starts: when address-space layout randomisation is on, it turns it off
/// for this process (`personality(ADDR_NO_RANDOMIZE)`) and executes the program again, once, with
/// the same arguments; then it checks across ranks that code, the C library and the C++ library
/// are at the same addresses, and stops the program with a message saying what to do if not.
/// Everything the program did before constructing the environment is therefore done twice:
/// construct it first in `main`. A program that initialises MPI itself cannot be executed again
/// (MPI is running): start it under `setarch -R` (each rank: `mpiexec -n 4 setarch -R ./app`).
///
/// Built against Open MPI, the environment also keeps Open MPI from giving tine's windows to its
/// `pt2pt` and `rdma` one-sided components, which fail with `MPI_THREAD_MULTIPLE` (it sets
/// `OMPI_MCA_osc=^pt2pt,rdma` unless the variable is set already). A program that initialises
/// Open MPI itself sets that variable, or passes `--mca osc ^pt2pt,rdma` to `mpiexec`.
///
/// A program built against one MPI and started with another MPI's `mpiexec` (MPICH's and Open
/// MPI's are both on Debian, as `mpiexec.mpich` and `mpiexec.openmpi`) becomes as many jobs of
/// one process each, every one of which runs the whole computation alone. When the launcher's
/// variables (`OMPI_COMM_WORLD_SIZE`, `PMI_SIZE`, `MPI_LOCALNRANKS`) name more processes than the
/// one MPI sees, the environment says so on stderr (`tine: warning: ...`, naming the MPI the
/// program was built against and its `mpiexec`) and goes on: a warning rather than a stop,
/// because a program started by a process of an MPI job inherits those variables and rightly
/// runs alone.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <optional>

namespace tine::mpi {

class environment {
 public:
  /// Initialises MPI with `MPI_THREAD_MULTIPLE` (tine's progress thread and the worker both call
  /// MPI) after making the process layout the same on every rank (see the file comment), or, if
  /// the application has initialised MPI itself, adopts it: then the application keeps the duty
  /// to finalise it, and must have asked for `MPI_THREAD_MULTIPLE`. Collective over
  /// `MPI_COMM_WORLD`. Stops the program with a message when MPI gives a lower thread level or
  /// the layout differs between ranks.
  environment(int& argc, char**& argv);

  /// Finalises MPI if this environment initialised it. Collective.
  ~environment();

  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;

  /// True when this environment called `MPI_Init_thread` (and will call `MPI_Finalize`).
  bool owns_mpi() const noexcept { return m_owns; }

  /// Whether address-space layout randomisation was on and the program was executed again
  /// without it (see the file comment).
  static bool restarted_without_randomisation() noexcept;

 private:
  bool m_owns = false;
};

namespace detail {

/// Stops the program if code and libraries are not at the same addresses on every rank of
/// `comm` (collective). Called by the environment; exposed for tests.
void check_same_layout(MPI_Comm comm);

/// What the process's launcher says of the job it started: more than one process, by the
/// variable it sets (for messages: the variable and the launchers that set it).
struct launcher_job {
  int processes = 0;
  const char* variable = nullptr;
  const char* launcher = nullptr;
};

/// The job's size as the common launchers' variables name it (`OMPI_COMM_WORLD_SIZE`, set by Open
/// MPI's mpiexec; `PMI_SIZE`, by PMI launchers such as MPICH's Hydra; `MPI_LOCALNRANKS`, by
/// Hydra), when one names more than one process; nothing otherwise.
std::optional<launcher_job> launcher_job_size();

/// Prints a warning on stderr, naming the likely cause and the fix, when `launched` names more
/// than one process and MPI's world has `mpi_size` == 1: a program built against one MPI and
/// started by another's mpiexec runs as that many jobs of one process each. Called by the
/// environment.
void warn_if_launched_by_another_mpi(const std::optional<launcher_job>& launched, int mpi_size);

/// Open MPI only: excludes the one-sided components that fail with tine's windows (see the file
/// comment), unless `OMPI_MCA_osc` is set. Before `MPI_Init_thread`; nothing with MPICH.
void choose_one_sided_components();

/// Turns address-space randomisation off and executes the program again, unless it is already
/// off or `TINE_MPI_KEEP_ASLR=1` (for a test of the check itself). Returns if nothing was done.
void restart_without_randomisation(char** argv);

}  // namespace detail
}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_ENVIRONMENT_HPP
