#ifndef TINE_CORE_WORKER_STRANDS_HPP
#define TINE_CORE_WORKER_STRANDS_HPP

/// \file worker_strands.hpp
/// The seam through which a layer above the core keeps state per *strand*: what one worker runs
/// between two scheduling events, from a root's start, a steal or a move (resume_on) until it
/// arrives at a join it is not the last at, or the root ends. tine::reducer's views use it
/// (reducers/views_layer.hpp); the core itself keeps nothing per strand.
///
/// The core reports the events that begin, suspend and end strands, all off the fork path: a
/// root begins and ends, a thief begins a strand with a stolen continuation, a strand arrives at
/// a join (`deposit`, before its arrival is counted, so that the count publishes what it left in
/// the frame) and the last one to arrive continues the task (`merge`, after the count, which
/// makes every other strand's deposit visible). A worker gets ready for a strand before it takes
/// work (`reserve`), so that beginning one never fails. Each frame has two words for the layer
/// (`frame::views_left`, `frame::running.views_stolen`); a parked or moved task carries its
/// strand's record (`leave`, `enter`).
///
/// One layer per process, installed before main (the reducers' headers install theirs during
/// static initialisation). The choice is fixed the first time any worker of the process reports
/// an event, so that every strand of every computation sees the same layer: a layer installed
/// later (a computation ran during static initialisation, before the reducers' headers were
/// initialised) is refused, and its users report that there is no record (reducer::view()
/// throws with a message).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstddef>
#include <exception>
#include <utility>

#include <tine/core/frame.hpp>

namespace tine::detail {

class worker_strands;

/// What a layer keeps per strand, called by the core with the worker's part (`worker_strands`).
/// Every member is called on the worker that reports the event; none may throw.
class strand_layer {
 public:
  /// Makes sure the worker can begin a strand without allocating; false when memory is short
  /// (the worker must not take work now).
  virtual bool reserve(worker_strands& w) const noexcept = 0;
  /// A root task starts on the worker: its strand is the leftmost of the whole computation.
  virtual void begin_root(worker_strands& w) const noexcept = 0;
  /// The root task ended on the worker, its frame gone; an error of the layer's own (a monoid
  /// that threw) goes to `error` unless one is there.
  virtual void end_root(worker_strands& w, std::exception_ptr& error) const noexcept = 0;
  /// The worker has just stolen `f`'s continuation (`f->steals` counted).
  virtual void begin_stolen(worker_strands& w, frame* f) const noexcept = 0;
  /// The worker's strand arrives at `f`'s join, before its arrival is counted.
  virtual void deposit(worker_strands& w, frame* f) const noexcept = 0;
  /// The worker's strand arrived last at `f`'s join, after every other: it continues `f`.
  virtual void merge(worker_strands& w, frame* f) const noexcept = 0;
  /// The worker is destroyed (its strand ended): free what the layer keeps for it.
  virtual void retire(worker_strands& w) const noexcept = 0;

 protected:
  strand_layer() = default;
  strand_layer(const strand_layer&) = default;
  strand_layer& operator=(const strand_layer&) = default;
  ~strand_layer() = default;
};

/// The process's layer: none until one is installed; fixed at the first `get()`, after which
/// nothing more is installed. Acquire/release: a worker that reads a layer's address sees the
/// layer constructed.
class strand_layer_slot {
 public:
  /// Installs `layer` unless another is installed or the choice was fixed; true if `layer` is
  /// the process's layer now.
  static bool install(const strand_layer* layer) noexcept {
    const strand_layer* expected = nullptr;
    return m_slot.compare_exchange_strong(expected, layer, std::memory_order_release,
                                          std::memory_order_acquire) ||
           expected == layer;
  }

  /// The layer every worker uses (null: none), fixing the choice at the first call.
  static const strand_layer* get() noexcept {
    const strand_layer* l = m_slot.load(std::memory_order_acquire);
    if (TINE_UNLIKELY(l == nullptr)) {
      l = fix();
    }
    return l == &m_none ? nullptr : l;
  }

 private:
  /// Whose address says "none, and no more installs"; never called.
  class none_layer final : public strand_layer {
   public:
    constexpr none_layer() = default;
    bool reserve(worker_strands&) const noexcept override { return true; }
    void begin_root(worker_strands&) const noexcept override {}
    void end_root(worker_strands&, std::exception_ptr&) const noexcept override {}
    void begin_stolen(worker_strands&, frame*) const noexcept override {}
    void deposit(worker_strands&, frame*) const noexcept override {}
    void merge(worker_strands&, frame*) const noexcept override {}
    void retire(worker_strands&) const noexcept override {}
  };

  TINE_NOINLINE static const strand_layer* fix() noexcept {
    const strand_layer* expected = nullptr;
    // acquire on failure: a layer installed meanwhile is seen constructed.
    if (m_slot.compare_exchange_strong(expected, &m_none, std::memory_order_acq_rel,
                                       std::memory_order_acquire)) {
      return &m_none;
    }
    return expected;
  }

  static constinit inline const none_layer m_none{};
  static constinit inline std::atomic<const strand_layer*> m_slot{nullptr};
};

struct strand_views;  // a strand's record: defined by the layer (reducers/strand_records.hpp)

/// A worker's part of the seam: the record of the strand it runs and the layer's state for the
/// worker. Each event goes to the process's layer, or nowhere when it has none.
class worker_strands {
 public:
  worker_strands() = default;
  worker_strands(const worker_strands&) = delete;
  worker_strands& operator=(const worker_strands&) = delete;
  ~worker_strands() {
    TINE_ASSERT(m_current == nullptr, "a worker was destroyed while it ran a strand");
    if (m_words.list != nullptr) {
      strand_layer_slot::get()->retire(*this);
    }
  }

  /// Two words the layer keeps for the worker, zero at first: in them a layer keeps what a
  /// worker needs to begin a strand without allocating (the reducers: a list of spare records
  /// and its length), so that making a worker allocates nothing for the layer. `retire` is
  /// called at the worker's end when `list` is not null.
  struct layer_words {
    void* list = nullptr;
    std::size_t count = 0;
  };

  /// The record of the strand the worker runs: null between pieces of work, and where the layer
  /// keeps none.
  strand_views* current() const noexcept { return m_current; }
  void set_current(strand_views* s) noexcept { m_current = s; }

  layer_words& words() noexcept { return m_words; }

  bool reserve() noexcept {
    const strand_layer* l = strand_layer_slot::get();
    return l == nullptr || l->reserve(*this);
  }
  void begin_root() noexcept {
    if (const strand_layer* l = strand_layer_slot::get()) {
      l->begin_root(*this);
    }
  }
  void end_root(std::exception_ptr& error) noexcept {
    if (const strand_layer* l = strand_layer_slot::get()) {
      l->end_root(*this, error);
    }
  }
  void begin_stolen(frame* f) noexcept {
    if (const strand_layer* l = strand_layer_slot::get()) {
      l->begin_stolen(*this, f);
    }
  }
  void deposit(frame* f) noexcept {
    if (const strand_layer* l = strand_layer_slot::get()) {
      l->deposit(*this, f);
    }
  }
  void merge(frame* f) noexcept {
    if (const strand_layer* l = strand_layer_slot::get()) {
      l->merge(*this, f);
    }
  }

  /// The strand leaves the worker with its task (a parked task, resume_on): its record goes with
  /// the task.
  strand_views* leave() noexcept { return std::exchange(m_current, nullptr); }
  /// A strand arrives on the worker with its task.
  void enter(strand_views* s) noexcept { m_current = s; }

 private:
  strand_views* m_current = nullptr;
  layer_words m_words;
};

}  // namespace tine::detail

#endif  // TINE_CORE_WORKER_STRANDS_HPP
