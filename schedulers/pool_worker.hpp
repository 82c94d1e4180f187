#ifndef TINE_SCHEDULERS_POOL_WORKER_HPP
#define TINE_SCHEDULERS_POOL_WORKER_HPP

/// \file pool_worker.hpp
/// `tine::pool_worker`: one chosen worker of a pool, as a scheduler of its own.
///
/// `pool.worker(i)` returns a reference to one that lives as long as the pool, so
/// `co_await tine::resume_on(pool.worker(i))` moves a task to worker i (through worker i's
/// submission queue, waking it if it sleeps), and `tine::sync_wait(pool.worker(i), fn)` starts a
/// root task there.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>

#include <tine/core/concepts.hpp>
#include <tine/core/submit_node.hpp>

namespace tine {

/// One worker of a pool as a scheduler: what `pool.worker(i)` returns (see the file comment).
class pool_worker {
 public:
  /// How the handle reaches its pool: a pool-specific function that queues a node for worker
  /// `index` (and wakes it). Type-erased so that one handle type serves every pool.
  using submit_fn = void (*)(void* pool, std::size_t index, submit_node* node) noexcept;

  /// Made by the pool (`pool.worker(i)`), not by users.
  pool_worker(void* pool, std::size_t index, submit_fn submit) noexcept
      : m_pool(pool), m_index(index), m_submit(submit) {}

  /// Queues `node` for this worker; any thread.
  void schedule(submit_node* node) const noexcept { m_submit(m_pool, m_index, node); }

  /// The worker's index in its pool.
  std::size_t index() const noexcept { return m_index; }

 private:
  void* m_pool;
  std::size_t m_index;
  submit_fn m_submit;
};

static_assert(scheduler<pool_worker>);

}  // namespace tine

#endif  // TINE_SCHEDULERS_POOL_WORKER_HPP
