#ifndef TINE_DISTRIBUTED_MPI_POOL_HPP
#define TINE_DISTRIBUTED_MPI_POOL_HPP

/// \file mpi_pool.hpp
/// `tine::mpi_pool<Policy>`: tine workers on every MPI rank, and `tine::sync_wait(pool, fn,
/// args...)` as a collective call that every rank makes with the same arguments and that returns
/// the root task's result (or throws its exception) on every rank.
///
/// ```
/// tine::mpi::environment env(argc, argv);
/// tine::mpi_pool pool;                      // collective over MPI_COMM_WORLD (mpi_pool<>)
/// long r = tine::sync_wait(pool, fib, 30);  // collective: the root starts on rank 0
/// ```
///
/// **What runs where.** Each rank runs `workers_per_rank` workers: the thread that constructed
/// the pool, and threads of the pool's. The root task starts on rank 0's first worker. The
/// workers of a rank steal from each other's deques as in a shared-memory pool, with no MPI on
/// that path. With more than one rank, every worker allocates its frames and stack allocations
/// in its rank's slice of the uni-address region and offers its oldest continuation, one at a
/// time, in its lane (an `offer_slot`); a worker that finds no work in its rank steals from
/// other ranks with one-sided operations, copying the
/// continuation's frame to the same address, and a stolen frame's join completes on the rank
/// that created it (docs/distributed_internals.md, "Stealing across ranks"). What a task may do:
/// touch its frame, its stack allocations and those of its ancestors that it was given pointers
/// to before its first fork; write results through `fork(&r, ...)` / `call(&r, ...)`. Heap memory
/// is per process.
///
/// Rules: construct the pool after the `tine::mpi::environment`, on the thread that will call
/// `sync_wait` (that thread is the rank's first worker) and destroy it there; construction,
/// `sync_wait` and destruction are collective over the pool's communicator, with the same
/// arguments on every rank (the constructor refuses different parameters; ranks whose collective
/// calls differ end the job with a message). The root task's result type must be trivially
/// copyable (its bytes are broadcast; a compile-time error says so otherwise). An exception that
/// escapes the root task reaches every rank's `sync_wait` as an exception of the same type where
/// the type can travel (register_exception.hpp), and as a `tine::mpi::remote_error` carrying the
/// original `what()` otherwise.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include <tine/core/callable_check.hpp>
#include <tine/core/root_sink.hpp>
#include <tine/core/sync_wait.hpp>
#include <tine/distributed/foundation/uni_address_region.hpp>
#include <tine/distributed/pool/rank_pool.hpp>
#include <tine/distributed/pool_counters.hpp>
#include <tine/distributed/pool_options.hpp>
#include <tine/distributed/register_exception.hpp>
#include <tine/distributed/remote_error.hpp>
#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>
#include <tine/policies/uniform_victims.hpp>
#include <tine/policies/victim_policy.hpp>

namespace tine {

namespace mpi::detail {
struct pool_core_access;
}  // namespace mpi::detail

/// The distributed pool. `Policy` chooses the victims of steals, as the local pools' policy does:
/// any `tine::victim_policy`, built once over the ranks as a topology
/// (`tine::mpi::rank_topology`: each machine a NUMA node, distance 1 within a machine and 2
/// across) for steals across ranks, and once over the rank's workers
/// (`tine::topology::discover`) for steals within a rank. `tine::uniform_victims` (the default)
/// picks any other rank or worker; `tine::numa_victims` prefers the ranks of the thief's
/// machine, and the workers of its NUMA node, with the NUMA policy's weights.
///
/// ```
/// tine::mpi_pool<tine::numa_victims> pool;
/// ```
///
/// Not a `tine::scheduler`: work reaches it only through the collective `sync_wait`, so
/// `tine::spawn` and `tine::resume_on` do not compile with it (each says why).
template <victim_policy Policy = uniform_victims>
class mpi_pool {
 public:
  using policy_type = Policy;
  /// tine's blocking algorithms run on the pool, collectively, over global spans
  /// (global_algorithms.hpp; algorithms/detail/entry.hpp).
  using tine_collective_pool = void;

  /// The least address space each stacklet of a worker takes in its slice (committed only as
  /// touched; see rank_pool.hpp).
  static constexpr std::size_t min_stacklet_bytes = mpi::detail::rank_pool::min_stacklet_bytes;

  /// Collective over `options.comm`: reserves the uni-address region (`slice_bytes` of task
  /// stacks per rank) and makes this rank's workers: the first bound to the calling thread at
  /// each sync_wait, the others on threads of the pool's, which wait between roots. Throws, on
  /// every rank, std::invalid_argument if the ranks passed different options,
  /// std::runtime_error if the region cannot be placed; std::bad_alloc.
  explicit mpi_pool(const mpi::pool_options& options)
      : m_core(options),
        m_policy(m_core.ranks()),
        m_worker_policy(topology::discover(m_core.workers_per_rank())) {}

  /// Collective over `comm`, with the default number of workers per rank; 0 for `slice_bytes`
  /// means the default (mpi::pool_options).
  explicit mpi_pool(MPI_Comm comm = MPI_COMM_WORLD, std::size_t slice_bytes = 0)
      : mpi_pool(mpi::pool_options{comm, 0, slice_bytes}) {}

  /// Collective. On the constructing thread.
  ~mpi_pool() = default;

  mpi_pool(const mpi_pool&) = delete;
  mpi_pool& operator=(const mpi_pool&) = delete;

  /// This rank in the pool's communicator, and the number of ranks.
  int rank() const noexcept { return m_core.rank(); }
  int size() const noexcept { return m_core.size(); }

  /// The workers of each rank.
  std::size_t workers_per_rank() const noexcept { return m_core.workers_per_rank(); }

  /// This rank's counts so far.
  mpi::pool_counters counters() const noexcept { return m_core.counters(); }

  /// How long this rank's successful steals took (nanoseconds, from the attempt until the
  /// continuation's bytes had arrived; the first 65,536), in the order they happened.
  std::vector<std::uint32_t> steal_latencies_ns() const { return m_core.steal_latencies_ns(); }

  /// The uni-address region where this rank's workers allocate their frames and stack
  /// allocations when the pool has more than one rank. Its type is internal (tine::mpi::detail):
  /// for tests and diagnostics, such as where an address lives (`home_rank`).
  const mpi::detail::uni_address_region& region() const noexcept { return m_core.region(); }

  /// The victim policy, built over the ranks.
  const Policy& policy() const noexcept { return m_policy; }

  /// The victim policy, built over the workers of a rank.
  const Policy& worker_policy() const noexcept { return m_worker_policy; }

  /// Used by `tine::sync_wait(mpi_pool&, ...)`: runs `root` on rank 0 and gives every rank its
  /// outcome (rank_pool::run_root). Collective.
  void run_root(submit_node* root, detail::waiting_sink& sink, void* value, std::size_t value_bytes,
                std::uint64_t signature) {
    m_core.run_root(root, sink, value, value_bytes, signature,
                    {{&next_victim, &m_policy}, {&next_victim, &m_worker_policy}});
  }

 private:
  friend struct mpi::detail::pool_core_access;  // for core_of, below

  static std::size_t next_victim(const void* policy, std::size_t thief, xoshiro256ss& rng) {
    return static_cast<const Policy*>(policy)->next_victim(thief, rng);
  }

  mpi::detail::rank_pool m_core;
  Policy m_policy;
  Policy m_worker_policy;
};

namespace mpi::detail {

/// The pool's rank part, for the layers built on the pool (global vectors are made on it).
struct pool_core_access {
  template <typename Policy>
  static rank_pool& of(mpi_pool<Policy>& pool) noexcept {
    return pool.m_core;
  }
};

/// `pool`'s rank_pool.
template <typename Policy>
rank_pool& core_of(mpi_pool<Policy>& pool) noexcept {
  return pool_core_access::of(pool);
}

}  // namespace mpi::detail

/// `tine::sync_wait` on an mpi_pool: collective; every rank calls it with the same function. The
/// root task starts on rank 0; every rank returns its result, or throws the exception that
/// escaped it (rebuilt with its type where the type can travel, see register_exception.hpp;
/// otherwise a `tine::mpi::remote_error` with its message). Arguments are used on rank 0 only
/// (and must live until the call returns, as for every sync_wait).
template <victim_policy Policy, typename F, typename... Args>
auto sync_wait(mpi_pool<Policy>& pool, F&& fn, Args&&... args) {
  if constexpr (detail::check_task_function<detail::entry::sync_wait, void, F, Args...>()) {
    using T = typename detail::task_value<std::invoke_result_t<F, Args...>>::type;
    static_assert(std::is_void_v<T> || std::is_trivially_copyable_v<T>,
                  "tine::sync_wait on an mpi_pool: the root task's result type must be trivially "
                  "copyable, because every rank receives a copy of its bytes");
    detail::refuse_on_worker();
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
  } else {
    detail::explain_refusal<F, Args...>();
  }
}

namespace detail {
template <typename>
inline constexpr bool mpi_pool_refuses = false;
}  // namespace detail

/// Refused at compile time: an mpi_pool takes root tasks only through the collective sync_wait.
template <victim_policy Policy, typename F, typename... Args>
void spawn(mpi_pool<Policy>&, F&&, Args&&...) {
  static_assert(detail::mpi_pool_refuses<Policy>,
                "tine::spawn on an mpi_pool: a distributed pool starts root tasks only through "
                "the collective tine::sync_wait(pool, fn, args...), which every rank calls");
}

/// Refused at compile time: a task cannot move onto an mpi_pool.
template <victim_policy Policy>
void resume_on(mpi_pool<Policy>&) {
  static_assert(detail::mpi_pool_refuses<Policy>,
                "tine::resume_on(mpi_pool): a task cannot move onto a distributed pool; its work "
                "starts only through the collective tine::sync_wait(pool, fn, args...)");
}

}  // namespace tine

#endif  // TINE_DISTRIBUTED_MPI_POOL_HPP
