#ifndef TINE_EXECUTION_PARALLEL_SCHEDULER_BACKEND_HPP
#define TINE_EXECUTION_PARALLEL_SCHEDULER_BACKEND_HPP

/// \file parallel_scheduler_backend.hpp
/// tine as the backend of the standard's parallel scheduler (P2079, "System execution context":
/// `std::execution::get_parallel_scheduler()`, stdexec's `stdexec::get_parallel_scheduler()`).
///
/// The frontend (stdexec's `parallel_scheduler`) turns `schedule`, `bulk`, `bulk_chunked` and
/// `bulk_unchunked` into calls of a replaceable backend object. `tine::execution::pool_backend`
/// is that object on a `tine::lazy_pool`. A program that links the Bazel target
/// `//execution:parallel_scheduler_backend` (parallel_scheduler_backend.cpp) gets it from every
/// `get_parallel_scheduler()`: code that only names the standard's scheduler runs on tine.
///
/// ```
/// auto sch = stdexec::get_parallel_scheduler();  // tine's pool, with the target linked
/// auto [r] = stdexec::sync_wait(stdexec::schedule(sch) | stdexec::then(work)).value();
/// ```

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <exception>
#include <memory>
#include <span>

#include <stdexec/execution.hpp>

#include <tine/schedulers/lazy_pool.hpp>

// With it, stdexec defines its own default backend in every unit: the program would have two.
#ifdef STDEXEC_PARALLEL_SCHEDULER_HEADER_ONLY
#error "tine's parallel scheduler backend: do not define STDEXEC_PARALLEL_SCHEDULER_HEADER_ONLY"
#endif

namespace tine::execution {

/// stdexec's names for the backend protocol (its `parallel_scheduler_replacement` namespace).
namespace parallel_replacement = stdexec::parallel_scheduler_replacement;

/// The parallel scheduler's backend on a `tine::lazy_pool` it owns.
///
/// - `schedule` queues one submission on the pool; the worker that takes it completes the
///   frontend with `set_stopped()` if the frontend's stop token (an `inplace_stop_token`) was
///   stopped by then, else with `set_value()`. The submission is built in the storage the
///   frontend lends (nothing allocated) when it fits, else allocated; if that allocation fails
///   the operation completes with `set_error(std::bad_alloc)`.
/// - `schedule_bulk_chunked(n, ...)` and `schedule_bulk_unchunked(n, ...)` run `[0, n)` as
///   tine's parallel loop: one root, spawned on the pool, halves the range recursively, forking
///   the left half, down to pieces of the size tine's algorithms use (algorithms/grain.hpp).
///   Chunked: the frontend's `execute(begin, end)` once per piece; unchunked: `execute(i, i + 1)`
///   once per index. Every index is covered exactly once, inside a tine task. The operation's
///   bookkeeping lives in the lent storage when it fits (else it is allocated); the root is
///   allocated, as a spawned root is. Then `set_value()` once every index is covered;
///   `set_stopped()` if the frontend's stop token was stopped before the loop ended (the pieces
///   starting after the stop are skipped); `set_error` if the root could not be allocated or
///   started.
/// - stdexec's frontend calls the bulk body through `execute`, which is `noexcept`: a body that
///   throws ends the program there, before tine sees it (an exception thrown in a `then` on the
///   parallel scheduler is caught by `then` and sent as `set_error`, as on any scheduler).
/// - The destructor destroys the pool: it waits for the work queued on it, then joins the
///   workers. It must not run on one of those workers (tine ends the program with a message).
class pool_backend final : public parallel_replacement::parallel_scheduler_backend {
 public:
  /// A backend with a pool of `workers` workers. Throws std::invalid_argument if workers == 0.
  explicit pool_backend(std::size_t workers);

  pool_backend(const pool_backend&) = delete;
  pool_backend& operator=(const pool_backend&) = delete;
  ~pool_backend() override;

  void schedule(parallel_replacement::receiver_proxy& r,
                std::span<std::byte> storage) noexcept override;
  void schedule_bulk_chunked(std::size_t count, parallel_replacement::bulk_item_receiver_proxy& r,
                             std::span<std::byte> storage) noexcept override;
  void schedule_bulk_unchunked(std::size_t count, parallel_replacement::bulk_item_receiver_proxy& r,
                               std::span<std::byte> storage) noexcept override;

  /// The pool the backend runs on (to spawn tine work beside the parallel scheduler's).
  tine::lazy_pool<>& pool() noexcept { return m_pool; }

 private:
  void schedule_bulk(bool chunked, std::size_t count,
                     parallel_replacement::bulk_item_receiver_proxy& r,
                     std::span<std::byte> storage) noexcept;

  tine::lazy_pool<> m_pool;
};

/// The workers of the process-wide backend: the environment variable
/// TINE_PARALLEL_SCHEDULER_WORKERS if it is set (a positive decimal number), else
/// `std::thread::hardware_concurrency()` (at least 1). Throws std::invalid_argument, with the
/// variable's text in the message, if it is set to anything else.
std::size_t parallel_scheduler_workers();

/// The process-wide backend: made on the first call, with `parallel_scheduler_workers()`
/// workers (a call that throws makes nothing, and the next call tries again); the same object
/// afterwards. It is destroyed when the program exits (with the other function-local statics),
/// or later, when the last `parallel_scheduler` still referring to it is destroyed; its pool's
/// destructor then waits for the work queued on it. The default of the replacement
/// (`query_parallel_scheduler_backend()` in parallel_scheduler_backend.cpp), and a factory
/// `set_parallel_scheduler_backend` takes.
std::shared_ptr<parallel_replacement::parallel_scheduler_backend> shared_pool_backend();

}  // namespace tine::execution

#endif  // TINE_EXECUTION_PARALLEL_SCHEDULER_BACKEND_HPP
