#ifndef TINE_DISTRIBUTED_MPI_POOL_HPP
#define TINE_DISTRIBUTED_MPI_POOL_HPP

/// \file mpi_pool.hpp
/// `tine::mpi_pool`: one tine worker per MPI rank, and `tine::sync_wait(pool, fn, args...)` as a
/// collective call that every rank makes with the same arguments and that returns the root task's
/// result (or throws its exception) on every rank.
///
/// ```
/// tine::mpi::environment env(argc, argv);
/// tine::mpi_pool pool;                      // collective over MPI_COMM_WORLD
/// long r = tine::sync_wait(pool, fib, 30);  // collective: the root starts on rank 0
/// ```
///
/// **What runs where.** The root task starts on rank 0's worker. With more than one rank, every
/// worker allocates its frames and stack allocations in its rank's slice of the uni-address
/// region and offers its continuations in its rank's `rma_deque`; idle ranks steal them with one-sided operations,
/// copying the continuation's frame to the same address, and a stolen frame's join completes on
/// the rank that created it (docs/distributed.md, "Stealing across ranks"). What a task may do:
/// touch its frame, its stack allocations and those of its ancestors that it was given pointers
/// to before its first fork; write results through `fork(&r, ...)` / `call(&r, ...)`. Heap memory
/// is per process.
///
/// Rules: construct the pool after the `tine::mpi::environment`, on the thread that will call
/// `sync_wait` (that thread is the rank's worker) and destroy it there; construction, `sync_wait`
/// and destruction are collective over the pool's communicator, with the same arguments on every
/// rank (the constructor refuses different parameters; ranks whose collective calls differ end
/// the job with a message). The root task's result type must be trivially copyable (its bytes are
/// broadcast; a compile-time error says so otherwise). An exception that escapes the root task
/// reaches every rank's `sync_wait` as an exception of the same type where the type can travel
/// (exception_transport.hpp), and as a `tine::mpi::remote_error` carrying the original `what()`
/// otherwise.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include <tine/core/callable_check.hpp>
#include <tine/core/context.hpp>
#include <tine/core/root_sink.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/sync_wait.hpp>
#include <tine/distributed/exception_transport.hpp>
#include <tine/distributed/remote_error.hpp>
#include <tine/distributed/uni_address_region.hpp>
#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>
#include <tine/policies/uniform_victims.hpp>
#include <tine/policies/victim_policy.hpp>

namespace tine {
namespace mpi {

class rma_deque;
namespace detail {
class rank_worker;
}

/// What one rank's pool has done so far (`mpi_pool::counters()`).
struct pool_counters {
  std::uint64_t steals = 0;          ///< continuations this rank took from other ranks
  /// of those, continuations whose stack allocations had begun new stacklets, so that they moved
  /// in several pieces
  std::uint64_t pieced_steals = 0;
  std::uint64_t steal_attempts = 0;  ///< tries to take one, successful or not
  std::uint64_t bytes_migrated = 0;  ///< frame bytes fetched for the continuations it took
  std::uint64_t remote_joins = 0;    ///< arrivals at the join of a frame held by another rank
  std::uint64_t rma_operations = 0;  ///< one-sided MPI operations this rank issued
  std::uint64_t roots = 0;           ///< root tasks this rank ran (sync_wait calls on rank 0)
};

/// Selects how an mpi_pool's ranks choose their victims: any `tine::victim_policy`, built over the
/// ranks as a topology (`rank_topology`: each machine a NUMA node, distance 1 within a machine
/// and 2 across). `tine::uniform_victims` (the default) picks any other rank;
/// `tine::numa_victims` prefers the ranks of the thief's machine, with the NUMA policy's weights.
///
/// ```
/// tine::mpi_pool pool(tine::mpi::victims<tine::numa_victims>);
/// ```
template <victim_policy Policy>
struct victims_tag {};
template <victim_policy Policy>
inline constexpr victims_tag<Policy> victims{};

}  // namespace mpi

class mpi_pool {
 public:
  /// Default capacity of each rank's deque of continuations (it holds one fewer).
  static constexpr std::size_t default_deque_capacity = std::size_t{1} << 16;

  /// The least address space each stacklet of a worker takes in its slice (committed only as
  /// touched). A stolen continuation moves with its frame and its stack allocations: in one
  /// piece while they share a stacklet, in several (each a round trip more) when they do not,
  /// which stacklets this large make rare.
  static constexpr std::size_t min_stacklet_bytes = std::size_t{8} << 20;

  /// Collective over `comm`: reserves the uni-address region (`slice_bytes` of task stacks per
  /// rank) and makes this rank's worker, bound to the calling thread at each sync_wait. Throws,
  /// on every rank, std::invalid_argument if the ranks passed different `slice_bytes` or
  /// `deque_capacity`, std::runtime_error if the region cannot be placed; std::bad_alloc.
  explicit mpi_pool(MPI_Comm comm = MPI_COMM_WORLD,
                    std::size_t slice_bytes = mpi::uni_address_region::default_slice_bytes,
                    std::size_t deque_capacity = default_deque_capacity)
      : mpi_pool(mpi::victims<uniform_victims>, comm, slice_bytes, deque_capacity) {}

  /// As above, with the victims of steals chosen by `Policy` (see mpi::victims).
  template <victim_policy Policy>
  explicit mpi_pool(mpi::victims_tag<Policy>, MPI_Comm comm = MPI_COMM_WORLD,
                    std::size_t slice_bytes = mpi::uni_address_region::default_slice_bytes,
                    std::size_t deque_capacity = default_deque_capacity)
      : mpi_pool(comm, slice_bytes, deque_capacity, [](const topology& ranks) {
          return victim_chooser([policy = std::make_shared<const Policy>(ranks)](
                                    std::size_t thief, xoshiro256ss& rng) {
            return policy->next_victim(thief, rng);
          });
        }) {}

  /// Collective. On the constructing thread.
  ~mpi_pool();

  mpi_pool(const mpi_pool&) = delete;
  mpi_pool& operator=(const mpi_pool&) = delete;

  /// This rank in the pool's communicator, and the number of ranks (one worker each).
  int rank() const noexcept { return m_rank; }
  int size() const noexcept { return m_size; }

  /// This rank's counts so far.
  mpi::pool_counters counters() const noexcept;

  /// How long this rank's successful steals took (nanoseconds, from the attempt until the
  /// continuation's bytes had arrived; the first 65,536), in the order they happened.
  std::vector<std::uint32_t> steal_latencies_ns() const;

  /// The uni-address region where this rank's worker allocates its frames and stack allocations
  /// when the pool has more than one rank.
  const mpi::uni_address_region& region() const noexcept { return *m_region; }

  /// Satisfies `tine::scheduler`, but work reaches an mpi_pool only through the collective
  /// `tine::sync_wait(pool, ...)`: this throws std::logic_error, without taking the node (so
  /// `resume_on(pool)` reports it to the task that tried).
  void schedule(submit_node* node);

  /// Used by `tine::sync_wait(mpi_pool&, ...)`: runs `root` on rank 0 (its sink `sink`, its
  /// result's `value_bytes` bytes at `value`; the root ends on rank 0, where it was made), then
  /// gives every rank the outcome: the bytes are copied into `value` on the other ranks, or the
  /// root's exception, rebuilt from its description, is thrown on all of them. `signature`
  /// identifies the root's function: it must be the same on every rank. Collective.
  void run_root(submit_node* root, detail::waiting_sink& sink, void* value, std::size_t value_bytes,
                std::uint64_t signature);

 private:
  using victim_chooser = std::function<std::size_t(std::size_t, xoshiro256ss&)>;

  mpi_pool(MPI_Comm comm, std::size_t slice_bytes, std::size_t deque_capacity,
           const std::function<victim_chooser(const topology&)>& make_chooser);

  class worker_session;  // binds the worker to the calling thread for one sync_wait

  /// Collective, in the constructor: throws std::invalid_argument on every rank if the ranks'
  /// parameters differ.
  void check_same_parameters(std::size_t slice_bytes, std::size_t deque_capacity);

  /// The worker, idle: continues a frame whose join completed, or tries one steal.
  void work_or_steal();

  MPI_Comm m_comm = MPI_COMM_NULL;
  int m_rank = 0;
  int m_size = 1;
  std::thread::id m_thread;
  std::unique_ptr<mpi::uni_address_region> m_region;
  std::unique_ptr<mpi::rma_deque> m_deque;
  std::unique_ptr<worker_context> m_context;
  std::unique_ptr<mpi::detail::rank_worker> m_worker;  // with more than one rank
  std::uint64_t m_roots = 0;
  std::uint64_t m_calls = 0;  // collective calls made (every rank), for collective_call
  std::unique_ptr<topology> m_ranks;  // what the victim policy was built over
  victim_chooser m_next_victim;
  xoshiro256ss m_random{0};
};

/// `tine::sync_wait` on an mpi_pool: collective; every rank calls it with the same function. The
/// root task starts on rank 0; every rank returns its result, or throws the exception that
/// escaped it (rebuilt with its type where the type can travel, see exception_transport.hpp;
/// otherwise a `tine::mpi::remote_error` with its message). Arguments are used on rank 0 only
/// (and must live until the call returns, as for every sync_wait).
template <typename F, typename... Args>
auto sync_wait(mpi_pool& pool, F&& fn, Args&&... args) {
  if constexpr (detail::check_task_function<detail::entry::sync_wait, void, F, Args...>()) {
    using T = typename detail::task_value<std::invoke_result_t<F, Args...>>::type;
    static_assert(std::is_void_v<T> || std::is_trivially_copyable_v<T>,
                  "tine::sync_wait on an mpi_pool: the root task's result type must be trivially "
                  "copyable, because every rank receives a copy of its bytes");
    if (current_worker() != nullptr) {
      throw std::logic_error(
          "tine::sync_wait: called on a worker thread, which would block it; inside a task use "
          "co_await tine::call(&result, fn, args...) instead");
    }
    // What every rank must agree on: the function's type and, for a function pointer, which
    // function (code is at the same address on every rank).
    std::uint64_t signature = typeid(std::decay_t<F>).hash_code();
    if constexpr (std::is_pointer_v<std::decay_t<F>>) {
      const std::decay_t<F> function = fn;
      signature ^= static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(function)) *
                   0x9e3779b97f4a7c15ULL;
    }
    detail::root_job<T, F, Args...> job(std::forward<F>(fn), std::forward<Args>(args)...);
    if constexpr (std::is_void_v<T>) {
      pool.run_root(&job, job, nullptr, 0, signature);
    } else {
      pool.run_root(&job, job, &job.value, sizeof(T), signature);
      return job.value;
    }
  }
}

}  // namespace tine

#endif  // TINE_DISTRIBUTED_MPI_POOL_HPP
